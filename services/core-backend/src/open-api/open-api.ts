/**
 * The open API as an app key reaches it: the key acts as the member who made it, narrowed to the
 * key's sources (`appKeys.principal`), and stops working for chat (403, as an invalid key) when
 * they leave the workspace or lose the `chat` permission. Its conversations are sessions of the
 * key (`key-sessions.ts`).
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { AppKey, AppKeys } from '../app-keys/app-keys';
import { invalidAppKey } from '../app-keys/require-app-key';
import type { StartedAnswer } from '../chats/answer-pipeline';
import type { KeyCaller, KeySessions, HistoryPage } from '../chats/key-sessions';
import type { Message } from '../chats/chat-repository';
import type { ChatTurn } from '../chats/model-client';

/** The models of a workspace the open API offers (model management, else the install's). */
export type WorkspaceModels = (workspaceId: string) => Promise<string[]>;

/** An OpenAI-style turn; `developer` is the newer name of `system`. */
export interface OpenApiTurn {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string;
}

export interface Completion {
  model: string;
  /** The conversation; the last turn is the question. */
  messages: OpenApiTurn[];
  temperature?: number;
  /** The session to answer in; a new one when absent. */
  sessionId?: string;
}

export function createOpenApi(deps: {
  appKeys: Pick<AppKeys, 'principal'>;
  keySessions: Pick<KeySessions, 'ask' | 'history'>;
  models: WorkspaceModels;
}) {
  /** The key at work; 403 when its maker can no longer chat in the (given) workspace. */
  async function callerOf(key: AppKey, workspaceId?: string): Promise<KeyCaller> {
    const principal = await deps.appKeys.principal(key, {
      permission: 'chat',
      refused: invalidAppKey,
      ...(workspaceId !== undefined ? { workspaceId } : {}),
    });
    return { key, principal };
  }

  return {
    /** The models of the key's workspace. */
    models: (key: AppKey): Promise<string[]> => deps.models(key.workspaceId),

    /**
     * Answers the last turn, a user's question, over the key's sources, in the session;
     * `opened` hears the session id before the answer starts.
     */
    async complete(
      key: AppKey,
      completion: Completion,
      options: { signal?: AbortSignal; opened?: (sessionId: string) => void } = {},
    ): Promise<StartedAnswer> {
      const caller = await callerOf(key);
      const last = completion.messages.at(-1);
      if (last?.role !== 'user' || !last.content.trim()) {
        throw new HttpError(400, 'invalid_messages', 'The last message must be a user question', {
          details: [{ in: 'body', path: 'messages', message: 'last message not from the user' }],
        });
      }
      if (!(await deps.models(key.workspaceId)).includes(completion.model)) {
        throw new HttpError(
          404,
          'model_not_found',
          `The model \`${completion.model}\` does not exist in this workspace`,
        );
      }
      const sessionId = completion.sessionId ?? randomUUID();
      options.opened?.(sessionId);
      const earlierTurns: ChatTurn[] = completion.messages.slice(0, -1).map((turn) => ({
        role: turn.role === 'developer' ? 'system' : turn.role,
        content: turn.content,
      }));
      return deps.keySessions.ask(caller, sessionId, {
        question: last.content,
        earlierTurns,
        model: completion.model,
        ...(completion.temperature !== undefined ? { temperature: completion.temperature } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    },

    /**
     * A page of a session's history, for a key of `workspaceId`: 403 for a key of elsewhere,
     * 400 without a session id.
     */
    async history(
      key: AppKey,
      workspaceId: string,
      sessionId: string | undefined,
      paging: HistoryPage,
    ): Promise<{ messages: Message[]; total: number }> {
      const caller = await callerOf(key, workspaceId);
      if (!sessionId) {
        throw new HttpError(400, 'missing_session_id', 'The X-SESSION-ID header is required');
      }
      return deps.keySessions.history(caller, sessionId, paging);
    },
  };
}

export type OpenApi = ReturnType<typeof createOpenApi>;
