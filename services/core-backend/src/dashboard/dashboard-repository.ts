/**
 * What the dashboard counts, read from what is stored: documents by state, messages per day,
 * reactions, the most used knowledge sources (from the records' `knowledge_source_detail`),
 * and the size of everything else. Every read is of one workspace.
 */
import type pg from 'pg';

export interface DashboardData {
  documents: Record<'queued' | 'processing' | 'done' | 'failed', number> & { total: number };
  messages_per_day: Array<{ day: string; messages: number }>;
  reactions: { likes: number; dislikes: number };
  top_sources: Array<{ type: string; id: string; name: string | null; uses: number }>;
  counts: Record<
    'members' | 'rooms' | 'messages' | 'topics' | 'folders' | 'databases' | 'apis',
    number
  >;
}

export function createDashboardRepository(pool: pg.Pool) {
  return {
    /** The workspace's figures over the last `days` (UTC days). */
    async figures(workspaceId: string, days: number): Promise<DashboardData> {
      const { rows: states } = await pool.query<{ state: string; n: number }>(
        'select state, count(*)::int as n from documents where workspace_id = $1 group by state',
        [workspaceId],
      );
      const documents = { queued: 0, processing: 0, done: 0, failed: 0, total: 0 };
      for (const row of states) {
        documents[row.state as keyof typeof documents] = row.n;
        documents.total += row.n;
      }
      // Every day of the window, the quiet ones with 0 (UTC days).
      const { rows: perDay } = await pool.query<{ day: string; messages: number }>(
        `select to_char(d.day, 'YYYY-MM-DD') as day, count(h.id)::int as messages
         from generate_series((now() at time zone 'UTC')::date - ($2::int - 1), (now() at time zone 'UTC')::date, interval '1 day') as d(day)
         left join chat_histories h on h.workspace_id = $1
           and h.created_at >= d.day at time zone 'UTC' and h.created_at < (d.day + interval '1 day') at time zone 'UTC'
         group by d.day order by d.day`,
        [workspaceId, days],
      );
      const { rows: reactions } = await pool.query<{ likes: number; dislikes: number }>(
        `select count(*) filter (where "like")::int as likes, count(*) filter (where dislike)::int as dislikes
         from chat_histories where workspace_id = $1`,
        [workspaceId],
      );
      const { rows: sources } = await pool.query<{
        type: string;
        id: string;
        name: string | null;
        uses: number;
      }>(
        `with used as (
           select s.value ->> 'type' as type, ids.id
           from chat_histories h, jsonb_array_elements(h.knowledge_source_detail) s,
             jsonb_array_elements_text(s.value -> 'topic_id') ids(id)
           where h.workspace_id = $1)
         select u.type, u.id, coalesce(d.name, t.name) as name, count(*)::int as uses
         from used u
         left join documents d on u.type = 'document' and d.id::text = u.id
         left join topics t on u.type = 'topic' and t.id::text = u.id
         group by u.type, u.id, d.name, t.name order by uses desc, u.id limit 10`,
        [workspaceId],
      );
      const { rows: counts } = await pool.query<DashboardData['counts']>(
        `select
           (select count(*)::int from workspace_users where workspace_id = $1) as members,
           (select count(*)::int from room_chats where workspace_id = $1) as rooms,
           (select count(*)::int from chat_histories where workspace_id = $1) as messages,
           (select count(*)::int from topics where workspace_id = $1) as topics,
           (select count(*)::int from document_folders where workspace_id = $1) as folders,
           (select count(*)::int from databases where workspace_id = $1) as databases,
           (select count(*)::int from apis where workspace_id = $1) as apis`,
        [workspaceId],
      );
      return {
        documents,
        messages_per_day: perDay,
        reactions: reactions[0] ?? { likes: 0, dislikes: 0 },
        top_sources: sources,
        counts: counts[0]!,
      };
    },
  };
}

export type DashboardRepository = ReturnType<typeof createDashboardRepository>;
