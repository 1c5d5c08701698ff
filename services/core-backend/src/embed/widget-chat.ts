/**
 * The embedded widget's chat, as a visitor reaches it. A visitor is anyone on the web: the widget
 * answers them as its app key (within what the key's maker may still use, `appKeys.principal`),
 * at most EMBED_RATE_LIMIT questions per window from one address, and a visitor's conversation
 * is a session of the key named `embed:<iframeId>:<session>`: a visitor reaches only widget
 * sessions, never a session a program opened through the open API.
 */
import { randomBytes } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { AppKeys } from '../app-keys/app-keys';
import type { StartedAnswer } from '../chats/answer-pipeline';
import type { Message } from '../chats/chat-repository';
import type { KeyCaller, KeySessions } from '../chats/key-sessions';
import type { Iframes, Widget } from '../workspace-config/iframes';
import type { VisitorLimit } from '../workspace-config/widget-visitor-limit';

/** The most recent messages a visitor's page shows. */
const HISTORY_LIMIT = 50;

/** Someone on a page that embeds the widget. */
export interface Visitor {
  iframeId: string;
  /** Their address, for the question limit. */
  address: string;
  /** Their conversation, once the widget gave them one. */
  session?: string;
}

export type WidgetAnswer =
  | { started: StartedAnswer; session: string; passageText: boolean }
  /** Over the limit: the seconds until the visitor may ask again. */
  | { retryAfter: number };

export function createWidgetChat(deps: {
  iframes: Pick<Iframes, 'widget'>;
  appKeys: Pick<AppKeys, 'principal'>;
  keySessions: Pick<KeySessions, 'ask' | 'history'>;
  visitorLimit: VisitorLimit;
}) {
  /** The widget and who it acts as; a widget whose maker can no longer chat is gone (404). */
  async function open(iframeId: string): Promise<{ widget: Widget; caller: KeyCaller }> {
    const widget = await deps.iframes.widget(iframeId);
    const principal = await deps.appKeys.principal(
      { id: widget.appKeyId, workspaceId: widget.workspaceId, createdBy: widget.actingUserId },
      {
        permission: 'chat',
        refused: () =>
          new HttpError(404, 'iframe_not_found', `The iframe ${widget.id} does not exist`),
      },
    );
    const key = { id: widget.appKeyId, workspaceId: widget.workspaceId, readsSessionsOf: [] };
    return { widget, caller: { key, principal } };
  }
  const sessionOf = (widget: Widget, session: string) => `embed:${widget.id}:${session}`;

  return {
    /**
     * Asks in the visitor's conversation (a new one without a session); `opened` hears the
     * session once it is the visitor's, before the answer starts.
     */
    async ask(
      visitor: Visitor,
      question: string,
      options: { signal?: AbortSignal; opened?: (session: string) => void } = {},
    ): Promise<WidgetAnswer> {
      const { widget, caller } = await open(visitor.iframeId);
      const retryAfter = await deps.visitorLimit(widget.id, visitor.address);
      if (retryAfter !== undefined) return { retryAfter };
      const session = visitor.session ?? randomBytes(16).toString('base64url');
      const started = await deps.keySessions.ask(caller, sessionOf(widget, session), {
        question,
        ...(options.signal ? { signal: options.signal } : {}),
        opened: () => options.opened?.(session),
      });
      return { started, session, passageText: widget.showPassages };
    },

    /** The latest messages of the visitor's conversation, newest first (none when unknown). */
    async history(visitor: { iframeId: string; session: string }): Promise<{
      messages: Message[];
      total: number;
    }> {
      const { widget, caller } = await open(visitor.iframeId);
      return deps.keySessions.history(caller, sessionOf(widget, visitor.session), {
        page: 1,
        limit: HISTORY_LIMIT,
      });
    },
  };
}

export type WidgetChat = ReturnType<typeof createWidgetChat>;
