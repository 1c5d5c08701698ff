/** Topics decide access themselves: a viewer reads, never changes; an outsider sees nothing. */
import { createTopics } from '../../src/topics/topics';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const TOPIC = '00000000-0000-4000-8000-0000000000aa';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  return { workspaces, data, topics: createTopics(data.repository(), data.access, workspaces) };
}

type Topics = ReturnType<typeof setup>['topics'];

describe('topics and access', () => {
  it.each([
    ['create', (t: Topics) => t.create(viewer, { name: 'n', description: '' })],
    ['update', (t: Topics) => t.update(viewer, TOPIC, { name: 'n' })],
    ['remove', (t: Topics) => t.remove(viewer, TOPIC)],
    ['addDocuments', (t: Topics) => t.addDocuments(viewer, TOPIC, [TOPIC])],
    ['removeDocument', (t: Topics) => t.removeDocument(viewer, TOPIC, TOPIC)],
  ])(
    'refuses a viewer %s with 403 (knowledge.write) before touching the data',
    async (_name, call) => {
      const { topics, workspaces, data } = setup();
      await expect(call(topics)).rejects.toEqual(refused(403));
      expect(workspaces.asked).toEqual(['knowledge.write']);
      expect(data.uses).toEqual([]);
    },
  );

  it('lets a viewer read (knowledge.read), and answers an outsider 404 before any query', async () => {
    const { topics, workspaces, data } = setup();
    await expect(topics.find(viewer, TOPIC)).rejects.toThrow('access.requireVisible was reached');
    await expect(topics.list(outsider, { page: 1, limit: 10 })).rejects.toEqual(refused(404));
    await expect(topics.documents(outsider, TOPIC, { page: 1, limit: 10 })).rejects.toEqual(
      refused(404),
    );
    expect(workspaces.asked).toEqual(['knowledge.read', 'knowledge.read', 'knowledge.read']);
    expect(data.uses).toEqual(['access.requireVisible']);
  });
});
