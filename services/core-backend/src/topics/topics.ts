/**
 * Topics: named groups of documents a chat can be pointed at. A topic's access list says who may
 * use it; it only ever hands out the documents the user may use themselves (`documentsOf`).
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, HttpError } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';

export interface TopicRecord {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  document_count: number;
}

const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A topic of that name exists') : err;
};

export function createTopics(pool: pg.Pool, access: AccessLists, workspaces: MemberCheck) {
  const columns = `t.*, (select count(*)::int from topic_documents td where td.topic_id = t.id)
    as document_count`;
  const select = `select ${columns} from topics t`;

  async function find(member: Membership, id: string): Promise<TopicRecord> {
    await access.requireVisible(member, 'topic', id);
    const { rows } = await pool.query<TopicRecord>(`${select} where t.id = $1`, [id]);
    if (!rows[0]) throw new HttpError(404, 'topic_not_found', `The topic ${id} does not exist`);
    return rows[0];
  }

  // Reading a topic asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    async list(actor: Actor, paging: Paging) {
      return access.page<TopicRecord>(
        await reader(actor),
        'topic',
        { alias: 't', columns, orderBy: 't.name, t.id' },
        paging,
      );
    },
    async create(actor: Actor, input: { name: string; description: string }) {
      const member = await writer(actor);
      const id = randomUUID();
      await access.createGranted(member, 'topic', id, (client) =>
        client
          .query(
            `insert into topics (id, workspace_id, name, description, created_by)
             values ($1, $2, $3, $4, $5)`,
            [id, member.workspaceId, input.name, input.description, member.userId],
          )
          .catch(taken),
      );
      return find(member, id);
    },
    async update(actor: Actor, id: string, changes: { name?: string; description?: string }) {
      const member = await writer(actor);
      await find(member, id);
      await pool
        .query(
          `update topics set name = coalesce($2, name), description = coalesce($3, description),
             updated_at = now() where id = $1`,
          [id, changes.name ?? null, changes.description ?? null],
        )
        .catch(taken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await pool.query('delete from topics where id = $1', [id]);
      await access.forget('topic', id);
    },
    /** The topic's documents the member may use, newest first. */
    async documents(actor: Actor, id: string, paging: Paging) {
      const member = await reader(actor);
      await find(member, id);
      const values: unknown[] = [id];
      const where = `td.topic_id = $1 and ${access.visibleSql(member, 'document', 'd', values)}`;
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from topic_documents td join documents d on d.id = td.document_id where ${where}`,
        values,
      );
      values.push(paging.limit, (paging.page - 1) * paging.limit);
      const { rows } = await pool.query<{
        id: string;
        name: string;
        state: string;
        added_at: Date;
      }>(
        `select d.id, d.name, d.state, td.added_at from topic_documents td
         join documents d on d.id = td.document_id where ${where}
         order by td.added_at desc, d.id limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    /** Adds documents the member may use, of the same workspace (400 naming any other); the topic. */
    async addDocuments(actor: Actor, id: string, documentIds: string[]) {
      const member = await writer(actor);
      await find(member, id);
      for (const documentId of documentIds) {
        if (!(await access.canUse(member, 'document', documentId))) {
          throw badRequest(`No document ${documentId} you may use in this workspace`);
        }
      }
      await pool.query(
        `insert into topic_documents (topic_id, document_id, added_by)
         select $1, unnest($2::uuid[]), $3 on conflict do nothing`,
        [id, documentIds, member.userId],
      );
      await pool.query('update topics set updated_at = now() where id = $1', [id]);
      return find(member, id);
    },
    async removeDocument(actor: Actor, id: string, documentId: string) {
      const member = await writer(actor);
      await find(member, id);
      const { rowCount } = await pool.query(
        'delete from topic_documents where topic_id = $1 and document_id = $2',
        [id, documentId],
      );
      if (rowCount === 0) {
        throw new HttpError(
          404,
          'document_not_found',
          `The document ${documentId} is not in the topic`,
        );
      }
    },
    /** The documents of these topics the member may use (topics they may not use give nothing). */
    async documentsOf(member: Membership, topicIds: string[]): Promise<string[]> {
      const values: unknown[] = [member.workspaceId, topicIds];
      const { rows } = await pool.query<{ document_id: string }>(
        `select distinct td.document_id from topic_documents td
         join topics t on t.id = td.topic_id join documents d on d.id = td.document_id
         where t.workspace_id = $1 and td.topic_id = any($2::uuid[])
           and ${access.visibleSql(member, 'topic', 't', values)}
           and ${access.visibleSql(member, 'document', 'd', values)}`,
        values,
      );
      return rows.map((row) => row.document_id);
    },
  };
}

export type Topics = ReturnType<typeof createTopics>;
