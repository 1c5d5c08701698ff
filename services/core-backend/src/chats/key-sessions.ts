/**
 * Sessions opened with app keys (the open API's and the widget's conversations), as a key reaches
 * them: a key asks in its own sessions (a session id another key opened is 409), and reads the
 * sessions made with it (answered within its sources) and those of keys it was told to read
 * (`reads_sessions_of`) whose answers came from nothing outside what the key itself may answer
 * from. Any other session reads as unknown: empty.
 */
import { badRequest } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import type { Membership } from '../workspaces/workspaces';
import type { AnswerPipeline, AnswerRequest, StartedAnswer } from './answer-pipeline';
import type { ChatRepository, Message, Room } from './chat-repository';

export interface ReadingKey {
  id: string;
  workspaceId: string;
  readsSessionsOf: string[];
}

/** A key at work: its record, and who it acts as (`appKeys.principal`: its maker, narrowed). */
export interface KeyCaller {
  key: ReadingKey;
  principal: Membership;
}

/** A question in a session: the caller's own turns, model and temperature when it sends them. */
export type SessionQuestion = Pick<
  AnswerRequest,
  'question' | 'earlierTurns' | 'temperature' | 'signal'
> & {
  model?: string;
  /** Called once the session is the key's, before the answer starts (or fails to). */
  opened?: () => void;
};

export interface HistoryPage {
  page: number;
  limit: number;
  /** The messages after this one, oldest first (`page` is then ignored). */
  afterId?: string;
}

const notInSession = (id: string) => badRequest(`after_id ${id} is not a message of this session`);

export function createKeySessions(deps: {
  chats: ChatRepository;
  access: AccessLists;
  answers: Pick<AnswerPipeline, 'start'>;
}) {
  const { chats } = deps;

  /** Whether every answer of the room used only what the principal may use. */
  async function withinScope(principal: Membership, room: Room): Promise<boolean> {
    const used = await chats.usedSources(room);
    const visible = {
      document: await deps.access.visible(principal, 'document'),
      audio: await deps.access.visible(principal, 'audio'),
    };
    return used.every((source) => {
      if (source.type !== 'document' && source.type !== 'audio') return false;
      const allowed = visible[source.type];
      return allowed === 'all' || allowed.includes(source.id);
    });
  }

  /** The session's room if the key may read it. */
  async function readable({ key, principal }: KeyCaller, sessionId: string) {
    const room = await chats.findSessionRoom(key.workspaceId, sessionId);
    if (!room?.appKeyId) return undefined;
    // Its own sessions were answered within its sources: only another key's need the check
    // (which reads every answer's sources, so it is not paid on every page of an export).
    if (room.appKeyId === key.id) return room;
    if (!key.readsSessionsOf.includes(room.appKeyId)) return undefined;
    return (await withinScope(principal, room)) ? room : undefined;
  }

  return {
    /** Asks in the key's session (made on first use), as the key's principal. */
    async ask(
      { key, principal }: KeyCaller,
      sessionId: string,
      { model, opened, ...question }: SessionQuestion,
    ): Promise<StartedAnswer> {
      const room = await chats.sessionRoom(key.workspaceId, sessionId, key.id);
      opened?.();
      return deps.answers.start({
        member: principal,
        room: model === undefined ? room : { ...room, model },
        ...question,
      });
    },

    /**
     * A page of the session's messages, newest first (or those after `afterId`, oldest first),
     * and how many it has; an unreadable session is an empty one.
     */
    async history(
      caller: KeyCaller,
      sessionId: string,
      paging: HistoryPage,
    ): Promise<{ messages: Message[]; total: number }> {
      const room = await readable(caller, sessionId);
      if (!room) {
        if (paging.afterId) throw notInSession(paging.afterId);
        return { messages: [], total: 0 };
      }
      if (!paging.afterId) {
        return {
          messages: await chats.page(room, paging.page, paging.limit),
          total: room.messageCount,
        };
      }
      const after = await chats.after(room, paging.afterId, paging.limit);
      if (!after) throw notInSession(paging.afterId);
      return { messages: after, total: room.messageCount };
    },
  };
}

export type KeySessions = ReturnType<typeof createKeySessions>;
