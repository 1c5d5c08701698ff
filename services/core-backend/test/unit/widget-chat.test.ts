/**
 * The widget's chat decides for anonymous visitors: the widget acts as its key (a widget whose
 * maker can no longer chat is 404), a visitor over the limit is not answered, and a visitor's
 * conversation is a widget session of the key, never any other session.
 */
import type { StartedAnswer } from '../../src/chats/answer-pipeline';
import type { KeyCaller, SessionQuestion } from '../../src/chats/key-sessions';
import { createWidgetChat } from '../../src/embed/widget-chat';
import type { Widget } from '../../src/workspace-config/iframes';
import type { Membership } from '../../src/workspaces/workspaces';
import { WORKSPACE } from './access-fakes';

const IFRAME = '00000000-0000-4000-8000-0000000000aa';
const widget = {
  id: IFRAME,
  workspaceId: WORKSPACE,
  appKeyId: 'key',
  actingUserId: 'maker',
  showPassages: false,
} as Widget;
const principal = { workspaceId: WORKSPACE, userId: 'maker' } as Membership;
const visitor = { iframeId: IFRAME, address: '203.0.113.9', session: 'S'.repeat(22) };

function setup(options: { makerMayChat?: boolean; retryAfter?: number } = {}) {
  const calls: unknown[][] = [];
  const widgetChat = createWidgetChat({
    iframes: { widget: () => Promise.resolve(widget) },
    appKeys: {
      principal: (key, principalOptions) => {
        calls.push(['principal', key, principalOptions.permission]);
        return options.makerMayChat === false
          ? Promise.reject(principalOptions.refused())
          : Promise.resolve(principal);
      },
    },
    keySessions: {
      ask: (caller: KeyCaller, session: string, question: SessionQuestion) => {
        calls.push(['ask', caller, session, question.question]);
        question.opened?.();
        return Promise.resolve({} as StartedAnswer);
      },
      history: (caller: KeyCaller, session: string, paging: unknown) => {
        calls.push(['history', caller, session, paging]);
        return Promise.resolve({ messages: [], total: 0 });
      },
    },
    visitorLimit: (widgetId, address) => {
      calls.push(['limit', widgetId, address]);
      return Promise.resolve(options.retryAfter);
    },
  });
  return { widgetChat, calls };
}

const keyCaller = { key: { id: 'key', workspaceId: WORKSPACE, readsSessionsOf: [] }, principal };

describe('the widget chat', () => {
  it('answers 404 when the maker can no longer chat, before the limit or any session', async () => {
    const { widgetChat, calls } = setup({ makerMayChat: false });
    const refusal = { status: 404, code: 'iframe_not_found' };
    await expect(widgetChat.ask(visitor, 'q')).rejects.toMatchObject(refusal);
    await expect(widgetChat.history(visitor)).rejects.toMatchObject(refusal);
    expect(calls.map((call) => call[0])).toEqual(['principal', 'principal']);
    expect(calls[0]).toEqual([
      'principal',
      { id: 'key', workspaceId: WORKSPACE, createdBy: 'maker' },
      'chat',
    ]);
  });

  it('does not answer a visitor over the limit', async () => {
    const { widgetChat, calls } = setup({ retryAfter: 42 });
    await expect(widgetChat.ask(visitor, 'q')).resolves.toEqual({ retryAfter: 42 });
    expect(calls.map((call) => call[0])).toEqual(['principal', 'limit']);
    expect(calls[1]).toEqual(['limit', IFRAME, visitor.address]);
  });

  it("asks in the visitor's widget session as the key, and says which session", async () => {
    const { widgetChat, calls } = setup();
    const opened = jest.fn();
    const answer = await widgetChat.ask(visitor, 'q', { opened });
    expect(answer).toMatchObject({ session: visitor.session, passageText: false });
    expect(calls[2]).toEqual(['ask', keyCaller, `embed:${IFRAME}:${visitor.session}`, 'q']);
    expect(opened).toHaveBeenCalledWith(visitor.session);
  });

  it('gives a new visitor a new session', async () => {
    const { widgetChat, calls } = setup();
    const answer = await widgetChat.ask({ iframeId: IFRAME, address: visitor.address }, 'q');
    const session = 'session' in answer ? answer.session : '';
    expect(session).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(calls[2]?.[2]).toBe(`embed:${IFRAME}:${session}`);
  });

  it("reads only the visitor's widget session, the latest 50 messages", async () => {
    const { widgetChat, calls } = setup();
    await widgetChat.history(visitor);
    expect(calls[1]).toEqual([
      'history',
      keyCaller,
      `embed:${IFRAME}:${visitor.session}`,
      { page: 1, limit: 50 },
    ]);
  });
});
