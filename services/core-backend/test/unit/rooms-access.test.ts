/**
 * Rooms decide access themselves: every call takes `chat`; an outsider is refused before the
 * chat repository or the answer pipeline is reached, and a room names only sources the member
 * may use.
 */
import type { AnswerRequest, StartedAnswer } from '../../src/chats/answer-pipeline';
import type { ChatRepository, Room } from '../../src/chats/chat-repository';
import { createRooms } from '../../src/chats/rooms';
import { fakeWorkspaces, outsider, refused, untouched, viewer, WORKSPACE } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000044';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const chats = new Proxy({} as ChatRepository, {
    get: (_t, key) => () => {
      data.uses.push(`chats.${String(key)}`);
      return Promise.reject(new Error('chat store was reached'));
    },
  });
  const answers = {
    start: () => {
      data.uses.push('answers.start');
      return Promise.reject(new Error('the answer pipeline was reached'));
    },
  };
  return {
    workspaces,
    data,
    rooms: createRooms({ workspaces, access: data.access, chats, answers }),
  };
}
type Rooms = ReturnType<typeof setup>['rooms'];
const sources = [{ type: 'document', topic_id: [ID] }] as never;

describe('rooms and access', () => {
  it.each([
    ['list', (r: Rooms) => r.list(outsider, 1, 10)],
    ['create', (r: Rooms) => r.create(outsider, { name: 'r', knowledgeSources: [], model: null })],
    ['find', (r: Rooms) => r.find(outsider, ID)],
    ['update', (r: Rooms) => r.update(outsider, ID, { name: 'r' })],
    ['remove', (r: Rooms) => r.remove(outsider, ID)],
    ['messages', (r: Rooms) => r.messages(outsider, ID, 1, 10)],
    ['react', (r: Rooms) => r.react(outsider, ID, ID, 'like')],
    ['deleteMessage', (r: Rooms) => r.deleteMessage(outsider, ID, ID)],
    ['ask', (r: Rooms) => r.ask(outsider, ID, 'q')],
    ['askAgain', (r: Rooms) => r.askAgain(outsider, ID, ID, 'q')],
  ])(
    'answers an outsider %s with 404 (chat) before the chat store or the answer',
    async (_n, call) => {
      const { rooms, workspaces, data } = setup();
      await expect(call(rooms)).rejects.toEqual(refused(404));
      expect(workspaces.asked).toEqual(['chat']);
      expect(data.uses).toEqual([]);
    },
  );

  it("asks the access lists about a new room's sources before the room is made", async () => {
    const { rooms, data } = setup();
    await expect(
      rooms.create(viewer, { name: 'r', knowledgeSources: sources, model: null }),
    ).rejects.toThrow('access.canUse was reached');
    expect(data.uses).toEqual(['access.canUse']);
  });
});

describe('asking in a room', () => {
  const room = { id: ID, workspaceId: WORKSPACE, knowledgeSources: [] } as unknown as Room;

  function asking() {
    const calls: unknown[][] = [];
    const chats = {
      room: (...args: unknown[]) => {
        calls.push(['room', ...args]);
        return Promise.resolve(room);
      },
      truncateFrom: (...args: unknown[]) => {
        calls.push(['truncateFrom', ...args]);
        return Promise.resolve();
      },
    } as unknown as ChatRepository;
    const answers = {
      start: (request: AnswerRequest) => {
        calls.push(['start', request]);
        return Promise.resolve({} as StartedAnswer);
      },
    };
    const rooms = createRooms({
      workspaces: fakeWorkspaces(),
      access: untouched().access,
      chats,
      answers,
    });
    return { rooms, calls };
  }

  it("asks as the member, in the member's own room", async () => {
    const { rooms, calls } = asking();
    await rooms.ask(viewer, ID, 'why?');
    expect(calls).toEqual([
      ['room', WORKSPACE, viewer.userId, ID],
      [
        'start',
        { member: expect.objectContaining({ userId: viewer.userId }), room, question: 'why?' },
      ],
    ]);
  });

  it('asks again only once the edited message and the later ones are gone', async () => {
    const { rooms, calls } = asking();
    await rooms.askAgain(viewer, ID, 'message', 'why not?');
    expect(calls.map((call) => call[0])).toEqual(['room', 'truncateFrom', 'start']);
    expect(calls[1]).toEqual(['truncateFrom', room, 'message']);
  });
});
