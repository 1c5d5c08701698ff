/**
 * The answer pipeline retrieves through the one `retrieve(member, query, scope)` as the member it
 * is given (a user, or an app key's narrowed principal), narrowed to the room's documents and
 * topics, with the workspace's settings; the caller's temperature replaces the workspace's.
 */
import { createAnswerPipeline } from '../../src/chats/answer-pipeline';
import type { ChatRepository, Message, Room } from '../../src/chats/chat-repository';
import type { ChatTurn, ModelClient } from '../../src/chats/model-client';
import type { WorkspaceSettings } from '../../src/workspaces/workspace-settings';
import type { Membership } from '../../src/workspaces/workspaces';
import { WORKSPACE } from './access-fakes';

const member = { workspaceId: WORKSPACE, userId: 'u', scope: { keyId: 'k' } } as Membership;
const settings = {
  top_k: 4,
  retrieval_mode: 'bm25',
  temperature: 0.7,
  chat_history_count: 0,
} as unknown as WorkspaceSettings;
const room = {
  id: 'room',
  workspaceId: WORKSPACE,
  model: null,
  knowledgeSources: [
    { type: 'topic', topic_id: ['t1'] },
    { type: 'document', topic_id: ['d1'] },
  ],
} as unknown as Room;

function setup() {
  const calls: unknown[][] = [];
  const message = { id: 'm', createdAt: new Date() } as Message;
  const chats = {
    addMessage: () => Promise.resolve(message),
    finishMessage: () => Promise.resolve(message),
    lastExchanges: () => Promise.resolve([]),
  } as unknown as ChatRepository;
  const models = {
    contextLength: () => Promise.resolve(undefined),
    stream: (_choice: unknown, turns: ChatTurn[], options: { temperature: number }) => {
      calls.push(['stream', turns.at(-1), options.temperature]);
      return Promise.resolve({ deltas: ['answer'], usage: () => undefined });
    },
  } as unknown as ModelClient;
  const answers = createAnswerPipeline({
    chats,
    workspaceSettings: (workspaceId) => {
      calls.push(['settings', workspaceId]);
      return Promise.resolve(settings);
    },
    retrieve: (asked, query, scope) => {
      calls.push(['retrieve', asked, query, scope]);
      return Promise.resolve([]);
    },
    models,
    resolveModel: () => Promise.resolve({ model: 'm', baseUrl: 'http://model', apiKey: undefined }),
    systemPrompt: () => Promise.resolve(undefined),
    lookups: { find: () => Promise.resolve([]) },
    maximumChatPerRoom: 2,
    passagesIn: 'user',
  });
  return { answers, calls };
}

describe('the answer pipeline', () => {
  it("retrieves as the given member, narrowed to the room's sources, with the workspace's settings", async () => {
    const { answers, calls } = setup();
    await answers.start({ member, room, question: 'why?' });
    expect(calls.slice(0, 3)).toEqual([
      ['settings', WORKSPACE],
      [
        'retrieve',
        member,
        'why?',
        { settings, narrowTo: { documentIds: ['d1'], topicIds: ['t1'] } },
      ],
      ['stream', { role: 'user', content: 'why?' }, 0.7],
    ]);
  });

  it("answers with the caller's temperature when it gives one", async () => {
    const { answers, calls } = setup();
    await answers.start({
      member,
      room: { ...room, knowledgeSources: [] },
      question: 'q',
      temperature: 0.1,
    });
    expect(calls[1]).toEqual(['retrieve', member, 'q', { settings }]);
    expect(calls[2]).toEqual(['stream', { role: 'user', content: 'q' }, 0.1]);
  });
});
