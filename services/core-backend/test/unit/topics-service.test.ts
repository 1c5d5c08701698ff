/** What the topics service does with its repository, for a member who may use the topic. */
import type { TopicRecord, TopicRepository } from '../../src/topics/topic-repository';
import { createTopics } from '../../src/topics/topics';
import {
  editor,
  editorMembership,
  editorWorkspace,
  fakeRepository,
  openAccess,
} from './knowledge-fakes';

const TOPIC = '00000000-0000-4000-8000-0000000000aa';
const DOCUMENT = '00000000-0000-4000-8000-0000000000cc';
const topic = { id: TOPIC, name: 't' } as TopicRecord;

describe('topics service', () => {
  it('answers 404 when the document taken out was not in the topic', async () => {
    const { access } = openAccess();
    const topics = createTopics(
      fakeRepository<TopicRepository>({
        byId: () => Promise.resolve(topic),
        removeDocument: () => Promise.resolve(false),
      }),
      access,
      editorWorkspace,
    );
    await expect(topics.removeDocument(editor, TOPIC, DOCUMENT)).rejects.toMatchObject({
      status: 404,
      code: 'document_not_found',
    });
  });

  it('creates through the access lists, answering a taken name with 409', async () => {
    const { access, asked } = openAccess();
    const topics = createTopics(
      fakeRepository<TopicRepository>({
        insert: () => Promise.reject(Object.assign(new Error('duplicate'), { code: '23505' })),
      }),
      access,
      editorWorkspace,
    );
    await expect(topics.create(editor, { name: 't', description: '' })).rejects.toMatchObject({
      status: 409,
    });
    expect(asked).toEqual([['createGranted', 'topic', expect.any(String)]]);
  });

  it("hands out a topic's documents only through both visibility filters", async () => {
    const { access } = openAccess();
    let filters: string[] = [];
    const topics = createTopics(
      fakeRepository<TopicRepository>({
        documentsOf: (_workspace, _ids, visible) => {
          filters = [visible.topic('t', []), visible.document('d', [])];
          return Promise.resolve([DOCUMENT]);
        },
      }),
      access,
      editorWorkspace,
    );
    await expect(topics.documentsOf(editorMembership, [TOPIC])).resolves.toEqual([DOCUMENT]);
    expect(filters).toEqual(['visible(topic, t)', 'visible(document, d)']);
  });
});
