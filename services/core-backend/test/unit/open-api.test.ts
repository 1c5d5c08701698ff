/**
 * The open API decides for app keys: a key whose maker can no longer chat (or a key of another
 * workspace) is 403 before anything is read or asked; a completion needs a user's question last
 * and a model of the workspace before a session is touched.
 */
import type { AppKey } from '../../src/app-keys/app-keys';
import type { StartedAnswer } from '../../src/chats/answer-pipeline';
import type { KeyCaller, SessionQuestion } from '../../src/chats/key-sessions';
import { createOpenApi } from '../../src/open-api/open-api';
import type { Membership } from '../../src/workspaces/workspaces';
import { WORKSPACE } from './access-fakes';

const key = {
  id: 'key',
  workspaceId: WORKSPACE,
  createdBy: 'maker',
  readsSessionsOf: [],
} as unknown as AppKey;
const principal = { workspaceId: WORKSPACE, userId: 'maker' } as Membership;
const question = { role: 'user' as const, content: 'why?' };

function setup(options: { makerMayChat?: boolean } = {}) {
  const calls: unknown[][] = [];
  const openApi = createOpenApi({
    appKeys: {
      principal: (asked, principalOptions) => {
        calls.push(['principal', asked.id, principalOptions.workspaceId]);
        const elsewhere =
          principalOptions.workspaceId !== undefined && principalOptions.workspaceId !== WORKSPACE;
        return options.makerMayChat === false || elsewhere
          ? Promise.reject(principalOptions.refused())
          : Promise.resolve(principal);
      },
    },
    keySessions: {
      ask: (caller: KeyCaller, sessionId: string, asked: SessionQuestion) => {
        const { opened, ...rest } = asked;
        calls.push(['ask', caller, sessionId, rest]);
        opened?.();
        return Promise.resolve({} as StartedAnswer);
      },
      history: (caller: KeyCaller, sessionId: string, paging: unknown) => {
        calls.push(['history', caller, sessionId, paging]);
        return Promise.resolve({ messages: [], total: 0 });
      },
    },
    models: (workspaceId) => {
      calls.push(['models', workspaceId]);
      return Promise.resolve(['m']);
    },
  });
  return { openApi, calls };
}

describe('the open API', () => {
  it("answers 403 when the key's maker can no longer chat, before models or sessions", async () => {
    const { openApi, calls } = setup({ makerMayChat: false });
    await expect(openApi.complete(key, { model: 'm', messages: [question] })).rejects.toMatchObject(
      { status: 403, code: 'invalid_app_key' },
    );
    await expect(openApi.history(key, WORKSPACE, 's', { page: 1, limit: 1 })).rejects.toMatchObject(
      { status: 403 },
    );
    expect(calls.map((call) => call[0])).toEqual(['principal', 'principal']);
  });

  it('answers 403 for the history of another workspace, before a missing session is 400', async () => {
    const { openApi, calls } = setup();
    await expect(
      openApi.history(key, 'elsewhere', undefined, { page: 1, limit: 1 }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      openApi.history(key, WORKSPACE, undefined, { page: 1, limit: 1 }),
    ).rejects.toMatchObject({ status: 400, code: 'missing_session_id' });
    expect(calls.map((call) => call[0])).toEqual(['principal', 'principal']);
  });

  it.each([
    ['an assistant turn last', [question, { role: 'assistant' as const, content: 'a' }]],
    ['an empty question', [{ role: 'user' as const, content: '  ' }]],
  ])('answers %s with 400 before any session', async (_name, messages) => {
    const { openApi, calls } = setup();
    await expect(openApi.complete(key, { model: 'm', messages })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_messages',
    });
    expect(calls.map((call) => call[0])).toEqual(['principal']);
  });

  it('answers 404 for a model the workspace does not have, before any session', async () => {
    const { openApi, calls } = setup();
    await expect(
      openApi.complete(key, { model: 'other', messages: [question] }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    expect(calls.map((call) => call[0])).toEqual(['principal', 'models']);
  });

  it("asks in the key's session with the caller's turns, model and temperature", async () => {
    const { openApi, calls } = setup();
    const opened = jest.fn();
    await openApi.complete(
      key,
      {
        model: 'm',
        temperature: 0.1,
        sessionId: 's',
        messages: [{ role: 'developer', content: 'be brief' }, question],
      },
      { opened },
    );
    expect(opened).toHaveBeenCalledWith('s');
    expect(calls.at(-1)).toEqual([
      'ask',
      { key, principal },
      's',
      {
        question: 'why?',
        earlierTurns: [{ role: 'system', content: 'be brief' }],
        model: 'm',
        temperature: 0.1,
      },
    ]);
  });

  it('reads the history of a session as the key', async () => {
    const { openApi, calls } = setup();
    await openApi.history(key, WORKSPACE, 's', { page: 2, limit: 5, afterId: 'm1' });
    expect(calls).toEqual([
      ['principal', 'key', WORKSPACE],
      ['history', { key, principal }, 's', { page: 2, limit: 5, afterId: 'm1' }],
    ]);
  });
});
