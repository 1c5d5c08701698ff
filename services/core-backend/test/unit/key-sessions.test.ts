/**
 * Sessions of app keys decide what a key reaches: it asks only in its own sessions (another key's
 * session id is refused before any answer), reads its own sessions, and reads another key's only
 * when told to and when every answer there used what the key itself may use; anything else reads
 * as an empty session.
 */
import { HttpError } from '@pelita/kit';
import type { Visible } from '../../src/access/access-lists';
import type { AnswerRequest, StartedAnswer } from '../../src/chats/answer-pipeline';
import type { ChatRepository, Room } from '../../src/chats/chat-repository';
import { createKeySessions, type KeyCaller } from '../../src/chats/key-sessions';
import type { Membership } from '../../src/workspaces/workspaces';
import { WORKSPACE } from './access-fakes';

const principal: Membership = {
  workspaceId: WORKSPACE,
  userId: 'maker',
  role: 'editor',
  permissions: ['chat'],
  scope: { keyId: 'key', document: ['doc-1'], audio: [] },
};
const caller: KeyCaller = {
  key: { id: 'key', workspaceId: WORKSPACE, readsSessionsOf: ['friend'] },
  principal,
};
const roomOf = (appKeyId: string | null): Room =>
  ({ id: `room-of-${appKeyId}`, workspaceId: WORKSPACE, appKeyId, messageCount: 3 }) as Room;

function setup(options: { room?: Room; used?: Array<{ type: string; id: string }> } = {}) {
  const calls: unknown[][] = [];
  const record =
    <T>(name: string, answer: T) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    };
  const chats = {
    sessionRoom: record('sessionRoom', options.room ?? roomOf('key')),
    findSessionRoom: record('findSessionRoom', options.room),
    usedSources: record('usedSources', options.used ?? []),
    page: record('page', ['a page']),
    after: record('after', undefined),
  } as unknown as ChatRepository;
  const visible: Record<string, Visible> = { document: ['doc-1'], audio: [] };
  const access = {
    visible: (_member: Membership, type: string) => Promise.resolve(visible[type]!),
  } as never;
  const answers = {
    start: (request: AnswerRequest) => {
      calls.push(['start', request]);
      return Promise.resolve({} as StartedAnswer);
    },
  };
  return { sessions: createKeySessions({ chats, access, answers }), calls };
}

describe('asking in a key session', () => {
  it("asks as the key's principal in the key's room, the caller's model instead of the room's", async () => {
    const { sessions, calls } = setup();
    const opened = jest.fn();
    await sessions.ask(caller, 's1', { question: 'q', model: 'm', temperature: 0.3, opened });
    expect(calls).toEqual([
      ['sessionRoom', WORKSPACE, 's1', 'key'],
      [
        'start',
        {
          member: principal,
          room: { ...roomOf('key'), model: 'm' },
          question: 'q',
          temperature: 0.3,
        },
      ],
    ]);
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it("refuses another key's session before the answer starts", async () => {
    const { sessions, calls } = setup({
      room: new HttpError(409, 'session_taken', 'taken') as never,
    });
    const opened = jest.fn();
    await expect(sessions.ask(caller, 's1', { question: 'q', opened })).rejects.toMatchObject({
      status: 409,
    });
    expect(calls.map((call) => call[0])).toEqual(['sessionRoom']);
    expect(opened).not.toHaveBeenCalled();
  });
});

describe('reading a key session', () => {
  const paging = { page: 2, limit: 10 };

  it('reads its own session without checking the answers', async () => {
    const { sessions, calls } = setup({ room: roomOf('key') });
    await expect(sessions.history(caller, 's1', paging)).resolves.toEqual({
      messages: ['a page'],
      total: 3,
    });
    expect(calls.map((call) => call[0])).toEqual(['findSessionRoom', 'page']);
  });

  it.each([
    ['a user room', roomOf(null), []],
    ['a key it was not told to read', roomOf('stranger'), []],
    [
      "a friend's session with an answer from outside its sources",
      roomOf('friend'),
      [{ type: 'document', id: 'doc-2' }],
    ],
    [
      "a friend's session with an answer from a database",
      roomOf('friend'),
      [{ type: 'database', id: 'db' }],
    ],
  ])('reads %s as empty, its messages unread', async (_name, room, used) => {
    const { sessions, calls } = setup({ room, used });
    await expect(sessions.history(caller, 's1', paging)).resolves.toEqual({
      messages: [],
      total: 0,
    });
    expect(calls.map((call) => call[0])).not.toContain('page');
  });

  it("reads a friend's session whose answers used only its sources", async () => {
    const { sessions } = setup({
      room: roomOf('friend'),
      used: [{ type: 'document', id: 'doc-1' }],
    });
    await expect(sessions.history(caller, 's1', paging)).resolves.toEqual({
      messages: ['a page'],
      total: 3,
    });
  });

  it('answers 400 for a cursor that is not a message of the session, readable or not', async () => {
    for (const room of [roomOf('key'), undefined]) {
      const { sessions } = setup({ ...(room ? { room } : {}) });
      await expect(
        sessions.history(caller, 's1', { ...paging, afterId: 'elsewhere' }),
      ).rejects.toMatchObject({ status: 400 });
    }
  });
});
