/**
 * Rooms (private to their user; like/dislike; delete) and the seed's chat history open API:
 * app-key access, paging newest first, the `after_id` cursor, the refusals.
 */
import pg from 'pg';
import { createChatRepository, type ChatRepository } from '../../src/chats/chat-repository';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

interface ChatRecord {
  id: string;
  chat: string;
  session_id: string;
  workspace_id: string;
  like: boolean;
  dislike: boolean;
}
interface History {
  code: number;
  data: { results: ChatRecord[]; total: number; page: number; limit: number };
}

describe('rooms and chat history', () => {
  let stack: CoreStack;
  let admin: TestUser;
  let alice: TestUser;
  let pool: pg.Pool;
  let chats: ChatRepository;
  let workspaceId: string;
  let key: string;

  beforeAll(async () => {
    stack = await startCoreStack();
    admin = await stack.admin();
    alice = await stack.user('alice');
    pool = new pg.Pool({
      connectionString: stack.platform.databaseUrl,
      options: '-c search_path=core_backend',
    });
    chats = createChatRepository(pool);
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Chat' }),
        201,
      )
    ).id;
    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspaceId}/users/${alice.id}`, admin.token, {
        role: 'viewer',
      }),
      200,
    );
    key = (
      await expectJson<{ key: string }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/app-keys`, admin.token, { name: 'k' }),
        201,
      )
    ).key;
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  /** A session of the open API with `count` answered messages, oldest first. */
  async function session(sessionId: string, count: number, keyId?: string) {
    const keyRow = await pool.query<{ id: string }>(
      'select id from app_keys where workspace_id = $1 limit 1',
      [workspaceId],
    );
    const room = await chats.sessionRoom(workspaceId, sessionId, keyId ?? keyRow.rows[0]!.id);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const message = await chats.addMessage(room, {
        chat: `question ${i}`,
        llm: 'pelita-stub',
        knowledgeSourceDetail: [],
      });
      await chats.finishMessage(message.id, { response: `answer ${i}`, status: 'complete' });
      ids.push(message.id);
    }
    return { room, ids };
  }

  const history = (query: string, headers: Record<string, string>, workspace = workspaceId) =>
    stack.call(
      'GET',
      `/v1/api/open-api/workspaces/${workspace}/history${query}`,
      undefined,
      undefined,
      headers,
    );

  describe('open API', () => {
    it('answers the newest first with the total of the session', async () => {
      await session('s-paging', 7);
      const body = await expectJson<History>(
        history('?page=1&limit=3', { authorization: `Bearer ${key}`, 'x-session-id': 's-paging' }),
        200,
      );
      expect(body.code).toBe(200);
      expect(body.data.total).toBe(7);
      expect(body.data.page).toBe(1);
      expect(body.data.limit).toBe(3);
      expect(body.data.results.map((r) => r.chat)).toEqual([
        'question 6',
        'question 5',
        'question 4',
      ]);
      expect(Object.keys(body.data.results[0]!).sort()).toEqual(
        [
          'session_id',
          'workspace_id',
          'chat',
          'like',
          'dislike',
          'id',
          'llm',
          'response',
          'knowledge_source_detail',
          'created_at',
          'updated_at',
          'status',
          'error',
        ].sort(),
      );
      const last = await expectJson<History>(
        history('?page=3&limit=3', { authorization: `Bearer ${key}`, 'x-session-id': 's-paging' }),
        200,
      );
      expect(last.data.results.map((r) => r.chat)).toEqual(['question 0']);
    });

    it('defaults to page 1 and limit 300, and refuses a limit above 10000', async () => {
      const headers = { authorization: `Bearer ${key}`, 'x-session-id': 's-paging' };
      const body = await expectJson<History>(history('', headers), 200);
      expect([body.data.page, body.data.limit]).toEqual([1, 300]);
      await expectJson(history('?limit=10000', headers), 200);
      await expectJson(history('?limit=10001', headers), 400);
    });

    it('resumes after a message, oldest first', async () => {
      const { ids } = await session('s-cursor', 5);
      const headers = { authorization: `Bearer ${key}`, 'x-session-id': 's-cursor' };
      const body = await expectJson<History>(history(`?after_id=${ids[1]}&limit=2`, headers), 200);
      expect(body.data.results.map((r) => r.id)).toEqual([ids[2], ids[3]]);
      const foreign = await session('s-other', 1);
      await expectJson(history(`?after_id=${foreign.ids[0]}`, headers), 400);
    });

    it('answers an empty page for a session without messages, 400 without X-SESSION-ID', async () => {
      const empty = await expectJson<History>(
        history('', { authorization: `Bearer ${key}`, 'x-session-id': 'never-used' }),
        200,
      );
      expect(empty.data).toEqual({ results: [], total: 0, page: 1, limit: 300 });
      const missing = await expectJson<{ error: { code: string } }>(
        history('', { authorization: `Bearer ${key}` }),
        400,
      );
      expect(missing.error.code).toBe('missing_session_id');
    });

    it('refuses a bad, revoked or foreign key with 403', async () => {
      const headers = { 'x-session-id': 's-paging' };
      await expectJson(history('', headers), 403);
      await expectJson(history('', { ...headers, authorization: 'Bearer nonsense' }), 403);
      await expectJson(
        history('', { ...headers, authorization: `Bearer ${key.slice(0, -1)}x` }),
        403,
      );

      // A key of another workspace never reaches this one.
      const other = await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Other' }),
        201,
      );
      const otherKey = await expectJson<{ id: string; key: string }>(
        stack.call('POST', `/api/workspaces/${other.id}/app-keys`, admin.token, { name: 'o' }),
        201,
      );
      await expectJson(history('', { ...headers, authorization: `Bearer ${otherKey.key}` }), 403);
      await expectJson(
        history('', { ...headers, authorization: `Bearer ${otherKey.key}` }, other.id),
        200,
      );

      await expectJson(
        stack.call('DELETE', `/api/workspaces/${other.id}/app-keys/${otherKey.id}`, admin.token),
        200,
      );
      await expectJson(
        history('', { ...headers, authorization: `Bearer ${otherKey.key}` }, other.id),
        403,
      );
    });

    it("never reaches a user's room, whatever session id it names", async () => {
      const room = await expectJson<{ id: string; session_id: string }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/rooms`, alice.token, { name: 'mine' }),
        201,
      );
      const own = await chats.room(workspaceId, alice.id, room.id);
      await chats.addMessage(own, { chat: 'private', llm: 'x', knowledgeSourceDetail: [] });
      const body = await expectJson<History>(
        history('', { authorization: `Bearer ${key}`, 'x-session-id': room.session_id }),
        200,
      );
      expect(body.data.total).toBe(0);
    });
  });

  describe('rooms', () => {
    it("are private: another member, even an owner, never sees a user's room", async () => {
      const rooms = `/api/workspaces/${workspaceId}/rooms`;
      const room = await expectJson<{ id: string }>(
        stack.call('POST', rooms, alice.token, { name: 'Planning' }),
        201,
      );
      await expectJson(stack.call('GET', `${rooms}/${room.id}`, admin.token), 404);
      await expectJson(stack.call('GET', `${rooms}/${room.id}/messages`, admin.token), 404);
      const adminRooms = await expectJson<{ data: Array<{ id: string }> }>(
        stack.call('GET', rooms, admin.token),
        200,
      );
      expect(adminRooms.data.map((r) => r.id)).not.toContain(room.id);
      const renamed = await expectJson<{ name: string }>(
        stack.call('PATCH', `${rooms}/${room.id}`, alice.token, { name: 'Q3 planning' }),
        200,
      );
      expect(renamed.name).toBe('Q3 planning');
    });

    it('keeps like and dislike exclusive and changeable, and deletes messages', async () => {
      const rooms = `/api/workspaces/${workspaceId}/rooms`;
      const created = await expectJson<{ id: string }>(
        stack.call('POST', rooms, alice.token, {}),
        201,
      );
      const room = await chats.room(workspaceId, alice.id, created.id);
      const message = await chats.addMessage(room, {
        chat: 'hi',
        llm: 'x',
        knowledgeSourceDetail: [],
      });
      const reaction = `${rooms}/${room.id}/messages/${message.id}/reaction`;
      const liked = await expectJson<ChatRecord>(
        stack.call('PUT', reaction, alice.token, { reaction: 'like' }),
        200,
      );
      expect([liked.like, liked.dislike]).toEqual([true, false]);
      const disliked = await expectJson<ChatRecord>(
        stack.call('PUT', reaction, alice.token, { reaction: 'dislike' }),
        200,
      );
      expect([disliked.like, disliked.dislike]).toEqual([false, true]);
      const neither = await expectJson<ChatRecord>(
        stack.call('PUT', reaction, alice.token, { reaction: null }),
        200,
      );
      expect([neither.like, neither.dislike]).toEqual([false, false]);
      await expectJson(stack.call('PUT', reaction, admin.token, { reaction: 'like' }), 404);

      await expectJson(
        stack.call('DELETE', `${rooms}/${room.id}/messages/${message.id}`, alice.token),
        200,
      );
      const left = await expectJson<{ total: number }>(
        stack.call('GET', `${rooms}/${room.id}/messages`, alice.token),
        200,
      );
      expect(left.total).toBe(0);
      await expectJson(stack.call('DELETE', `${rooms}/${room.id}`, alice.token), 200);
      await expectJson(stack.call('GET', `${rooms}/${room.id}`, alice.token), 404);
    });
  });
});
