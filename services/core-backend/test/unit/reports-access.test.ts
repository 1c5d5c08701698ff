/**
 * Reports decide access themselves: a room's report takes `chat`, a topic's `knowledge.read`;
 * an outsider is refused before the room, the topic or the model is reached.
 */
import { createReports, type ReportDeps } from '../../src/chats/reports';
import { fakeWorkspaces, outsider, refused } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000033';

describe('reports and access', () => {
  it('answers an outsider 404 before reading a room, a topic or asking the model', async () => {
    const workspaces = fakeWorkspaces();
    const uses: string[] = [];
    const reached = (name: string) =>
      new Proxy(
        {},
        {
          get: (_t, key) => () => {
            uses.push(`${name}.${String(key)}`);
            return Promise.reject(new Error('reached'));
          },
        },
      );
    const reports = createReports({
      workspaces,
      topics: reached('topics'),
      chats: reached('chats'),
      knowledge: reached('knowledge'),
      models: reached('models'),
      resolveModel: () => Promise.reject(new Error('reached')),
      systemPrompt: () => Promise.reject(new Error('reached')),
      maxCharacters: 1000,
      temperature: 0,
    } as unknown as ReportDeps);
    await expect(reports.ofRoom(outsider, ID)).rejects.toEqual(refused(404));
    await expect(reports.ofTopic(outsider, ID)).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['chat', 'knowledge.read']);
    expect(uses).toEqual([]);
  });
});
