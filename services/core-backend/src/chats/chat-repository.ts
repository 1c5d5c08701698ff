/**
 * Rooms and their messages in PostgreSQL. A message gets its place in the session (`seq`) and the
 * room's count changes under the room's row lock, in the inserting transaction: sequence numbers
 * follow commit order (a cursor never skips a late commit) and `total` is read, not counted.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';

export interface KnowledgeSource {
  type: string;
  topic_id: string[];
}

export interface Room {
  id: string;
  workspaceId: string;
  sessionId: string;
  userId: string | null;
  /** The app key a session was opened with (open API, widget); null for users' rooms. */
  appKeyId: string | null;
  name: string;
  knowledgeSources: KnowledgeSource[];
  model: string | null;
  messageCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export type MessageStatus = 'answering' | 'complete' | 'partial' | 'failed';

export interface Message {
  id: string;
  roomId: string;
  workspaceId: string;
  sessionId: string;
  seq: number;
  chat: string;
  response: string;
  llm: string;
  like: boolean;
  dislike: boolean;
  knowledgeSourceDetail: KnowledgeSource[];
  status: MessageStatus;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface RoomRow {
  id: string;
  workspace_id: string;
  session_id: string;
  user_id: string | null;
  app_key_id: string | null;
  name: string;
  knowledge_sources: KnowledgeSource[];
  model: string | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
}

interface MessageRow {
  id: string;
  room_id: string;
  workspace_id: string;
  session_id: string;
  seq: string;
  chat: string;
  response: string;
  llm: string;
  like: boolean;
  dislike: boolean;
  knowledge_source_detail: KnowledgeSource[];
  status: MessageStatus;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRoom = (row: RoomRow): Room => ({
  id: row.id,
  workspaceId: row.workspace_id,
  sessionId: row.session_id,
  userId: row.user_id,
  appKeyId: row.app_key_id,
  name: row.name,
  knowledgeSources: row.knowledge_sources,
  model: row.model,
  messageCount: row.message_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toMessage = (row: MessageRow): Message => ({
  id: row.id,
  roomId: row.room_id,
  workspaceId: row.workspace_id,
  sessionId: row.session_id,
  seq: Number(row.seq),
  chat: row.chat,
  response: row.response,
  llm: row.llm,
  like: row.like,
  dislike: row.dislike,
  knowledgeSourceDetail: row.knowledge_source_detail,
  status: row.status,
  error: row.error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const roomNotFound = (id: string) =>
  new HttpError(404, 'room_not_found', `Room ${id} does not exist`);
const messageNotFound = (id: string) =>
  new HttpError(404, 'message_not_found', `Message ${id} does not exist`);

export interface NewRoom {
  workspaceId: string;
  userId: string;
  name: string;
  knowledgeSources: KnowledgeSource[];
  model: string | null;
}

export function createChatRepository(pool: pg.Pool) {
  return {
    async createRoom(input: NewRoom): Promise<Room> {
      const id = randomUUID();
      const { rows } = await pool.query<RoomRow>(
        `insert into room_chats (id, workspace_id, session_id, user_id, name, knowledge_sources, model)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [
          id,
          input.workspaceId,
          id,
          input.userId,
          input.name,
          JSON.stringify(input.knowledgeSources),
          input.model,
        ],
      );
      return toRoom(rows[0]!);
    },

    /**
     * The key's room of a session id (made on first use), never a user's room; 409 when another
     * key opened that session (a key neither reads nor adds to another key's conversation).
     */
    async sessionRoom(workspaceId: string, sessionId: string, appKeyId: string): Promise<Room> {
      const { rows } = await pool.query<RoomRow>(
        `insert into room_chats (id, workspace_id, session_id, user_id, app_key_id, name)
         values ($1, $2, $3, null, $4, $3)
         on conflict (workspace_id, user_id, session_id) do update set updated_at = room_chats.updated_at
           where room_chats.app_key_id = excluded.app_key_id
         returning *`,
        [randomUUID(), workspaceId, sessionId, appKeyId],
      );
      if (!rows[0]) {
        throw new HttpError(409, 'session_taken', 'This session id belongs to another key');
      }
      return toRoom(rows[0]);
    },

    /** Every resource the room's answers were given something from (`knowledge_source_detail`). */
    async usedSources(room: Room): Promise<Array<{ type: string; id: string }>> {
      const { rows } = await pool.query<{ type: string; id: string }>(
        `select distinct e->>'type' as type, jsonb_array_elements_text(e->'topic_id') as id
         from chat_histories h, jsonb_array_elements(h.knowledge_source_detail) e
         where h.room_id = $1`,
        [room.id],
      );
      return rows;
    },

    /** The open API's room of a session id, if it has one. */
    async findSessionRoom(workspaceId: string, sessionId: string): Promise<Room | undefined> {
      const { rows } = await pool.query<RoomRow>(
        `select * from room_chats where workspace_id = $1 and user_id is null and session_id = $2`,
        [workspaceId, sessionId],
      );
      return rows[0] && toRoom(rows[0]);
    },

    /** The user's room, or 404: nobody reaches another user's room. */
    async room(workspaceId: string, userId: string, roomId: string): Promise<Room> {
      const { rows } = await pool.query<RoomRow>(
        'select * from room_chats where id = $1 and workspace_id = $2 and user_id = $3',
        [roomId, workspaceId, userId],
      );
      if (!rows[0]) throw roomNotFound(roomId);
      return toRoom(rows[0]);
    },

    async rooms(workspaceId: string, userId: string, page: number, limit: number) {
      const { rows } = await pool.query<RoomRow>(
        `select * from room_chats where workspace_id = $1 and user_id = $2
         order by updated_at desc, id limit $3 offset $4`,
        [workspaceId, userId, limit, (page - 1) * limit],
      );
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from room_chats where workspace_id = $1 and user_id = $2',
        [workspaceId, userId],
      );
      return { rows: rows.map(toRoom), total: count[0]?.n ?? 0 };
    },

    async updateRoom(
      room: Room,
      changes: { name?: string; knowledgeSources?: KnowledgeSource[]; model?: string | null },
    ): Promise<Room> {
      const { rows } = await pool.query<RoomRow>(
        `update room_chats set name = coalesce($2, name),
           knowledge_sources = coalesce($3, knowledge_sources),
           model = case when $4 then $5 else model end, updated_at = now()
         where id = $1 returning *`,
        [
          room.id,
          changes.name ?? null,
          changes.knowledgeSources ? JSON.stringify(changes.knowledgeSources) : null,
          changes.model !== undefined,
          changes.model ?? null,
        ],
      );
      return toRoom(rows[0]!);
    },

    async deleteRoom(room: Room): Promise<void> {
      await pool.query('delete from room_chats where id = $1', [room.id]);
    },

    /** Adds a question to the room, its answer to come (`answering`). */
    async addMessage(
      room: Room,
      input: { chat: string; llm: string; knowledgeSourceDetail: KnowledgeSource[] },
    ): Promise<Message> {
      return inTransaction(pool, async (client) => {
        const { rows: counter } = await client.query<{ last_seq: string }>(
          `update room_chats set last_seq = last_seq + 1, message_count = message_count + 1,
             updated_at = now() where id = $1 returning last_seq`,
          [room.id],
        );
        if (!counter[0]) throw roomNotFound(room.id);
        const { rows } = await client.query<MessageRow>(
          `insert into chat_histories (id, room_id, workspace_id, session_id, seq, chat, llm,
             knowledge_source_detail, status)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 'answering') returning *`,
          [
            randomUUID(),
            room.id,
            room.workspaceId,
            room.sessionId,
            counter[0].last_seq,
            input.chat,
            input.llm,
            JSON.stringify(input.knowledgeSourceDetail),
          ],
        );
        return toMessage(rows[0]!);
      });
    },

    /** Stores the answer (whole, or what came before the model failed). */
    async finishMessage(
      id: string,
      result: {
        response: string;
        status: Exclude<MessageStatus, 'answering'>;
        error?: string;
        knowledgeSourceDetail?: KnowledgeSource[];
      },
    ): Promise<Message> {
      const { rows } = await pool.query<MessageRow>(
        `update chat_histories set response = $2, status = $3, error = $4,
           knowledge_source_detail = coalesce($5, knowledge_source_detail),
           updated_at = clock_timestamp()
         where id = $1 returning *`,
        [
          id,
          result.response,
          result.status,
          result.error ?? null,
          result.knowledgeSourceDetail ? JSON.stringify(result.knowledgeSourceDetail) : null,
        ],
      );
      if (!rows[0]) throw messageNotFound(id);
      return toMessage(rows[0]);
    },

    async message(room: Room, id: string): Promise<Message> {
      const { rows } = await pool.query<MessageRow>(
        'select * from chat_histories where id = $1 and room_id = $2',
        [id, room.id],
      );
      if (!rows[0]) throw messageNotFound(id);
      return toMessage(rows[0]);
    },

    /** Like, dislike (each excludes the other) or neither. */
    async react(room: Room, id: string, reaction: 'like' | 'dislike' | null): Promise<Message> {
      const { rows } = await pool.query<MessageRow>(
        `update chat_histories set "like" = $3, dislike = $4, updated_at = clock_timestamp()
         where id = $1 and room_id = $2 returning *`,
        [id, room.id, reaction === 'like', reaction === 'dislike'],
      );
      if (!rows[0]) throw messageNotFound(id);
      return toMessage(rows[0]);
    },

    async deleteMessage(room: Room, id: string): Promise<void> {
      await inTransaction(pool, async (client) => {
        const { rowCount } = await client.query(
          'delete from chat_histories where id = $1 and room_id = $2',
          [id, room.id],
        );
        if (rowCount === 0) throw messageNotFound(id);
        await client.query(
          'update room_chats set message_count = message_count - 1, updated_at = now() where id = $1',
          [room.id],
        );
      });
    },

    /** Removes the message and every later one (an edited question starts over from there). */
    async truncateFrom(room: Room, id: string): Promise<void> {
      await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ seq: string }>(
          'select seq from chat_histories where id = $1 and room_id = $2',
          [id, room.id],
        );
        if (!rows[0]) throw messageNotFound(id);
        const { rowCount } = await client.query(
          'delete from chat_histories where room_id = $1 and seq >= $2',
          [room.id, rows[0].seq],
        );
        await client.query(
          'update room_chats set message_count = message_count - $2, updated_at = now() where id = $1',
          [room.id, rowCount ?? 0],
        );
      });
    },

    /**
     * A page of the room's messages, newest first. The ids of the page come from the index alone
     * (`chat_histories_page`), then only those rows are read.
     */
    async page(room: Room, page: number, limit: number): Promise<Message[]> {
      const { rows } = await pool.query<MessageRow>(
        `select h.* from (
           select id, seq from chat_histories where room_id = $1
           order by seq desc limit $2 offset $3
         ) p join chat_histories h on h.id = p.id order by p.seq desc`,
        [room.id, limit, (page - 1) * limit],
      );
      return rows.map(toMessage);
    },

    /** Messages after the one with `afterId`, oldest first (incremental export). */
    async after(room: Room, afterId: string, limit: number): Promise<Message[] | undefined> {
      const { rows: anchor } = await pool.query<{ seq: string }>(
        'select seq from chat_histories where id = $1 and room_id = $2',
        [afterId, room.id],
      );
      if (!anchor[0]) return undefined;
      const { rows } = await pool.query<MessageRow>(
        `select * from chat_histories where room_id = $1 and seq > $2 order by seq limit $3`,
        [room.id, anchor[0].seq, limit],
      );
      return rows.map(toMessage);
    },

    /** The room's last `count` answered exchanges, oldest first (the prompt's history). */
    async lastExchanges(room: Room, count: number, before?: number): Promise<Message[]> {
      if (count === 0) return [];
      const { rows } = await pool.query<MessageRow>(
        `select * from chat_histories where room_id = $1 and status in ('complete', 'partial')
           and ($3::bigint is null or seq < $3)
         order by seq desc limit $2`,
        [room.id, count, before ?? null],
      );
      return rows.map(toMessage).reverse();
    },
  };
}

export type ChatRepository = ReturnType<typeof createChatRepository>;
