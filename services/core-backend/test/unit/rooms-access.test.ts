/**
 * Rooms decide access themselves: every call takes `chat`; an outsider is refused before the
 * chat store is reached, and a room names only sources the member may use.
 */
import type { ChatStore } from '../../src/chats/chat-store';
import { createRooms } from '../../src/chats/rooms';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000044';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const chats = new Proxy({} as ChatStore, {
    get: (_t, key) => () => {
      data.uses.push(`chats.${String(key)}`);
      return Promise.reject(new Error('chat store was reached'));
    },
  });
  return { workspaces, data, rooms: createRooms({ workspaces, access: data.access, chats }) };
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
    ['open', (r: Rooms) => r.open(outsider, ID)],
    ['reopenFrom', (r: Rooms) => r.reopenFrom(outsider, ID, ID)],
  ])('answers an outsider %s with 404 (chat) before the chat store', async (_n, call) => {
    const { rooms, workspaces, data } = setup();
    await expect(call(rooms)).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['chat']);
    expect(data.uses).toEqual([]);
  });

  it("asks the access lists about a new room's sources before the room is made", async () => {
    const { rooms, data } = setup();
    await expect(
      rooms.create(viewer, { name: 'r', knowledgeSources: sources, model: null }),
    ).rejects.toThrow('access.canUse was reached');
    expect(data.uses).toEqual(['access.canUse']);
  });
});
