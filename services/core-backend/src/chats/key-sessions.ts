/**
 * Sessions opened with app keys (the open API's and the widget's conversations), as a key reaches
 * them: a key reads the sessions made with it (answered within its sources), and those of keys it
 * was told to read (`reads_sessions_of`) whose answers came from nothing outside what the key
 * itself may answer from. Any other session reads as unknown: empty.
 */
import type { AccessLists } from '../access/access-lists';
import type { Membership } from '../workspaces/workspaces';
import type { ChatStore, Room } from './chat-store';

export interface ReadingKey {
  id: string;
  workspaceId: string;
  readsSessionsOf: string[];
}

export function createKeySessions(deps: { chats: ChatStore; access: AccessLists }) {
  /** Whether every answer of the room used only what the principal may use. */
  async function withinScope(principal: Membership, room: Room): Promise<boolean> {
    const used = await deps.chats.usedSources(room);
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

  return {
    /** The session's room if the key (acting as `principal`) may read it. */
    async readable(
      key: ReadingKey,
      principal: Membership,
      sessionId: string,
    ): Promise<Room | undefined> {
      const room = await deps.chats.findSessionRoom(key.workspaceId, sessionId);
      if (!room?.appKeyId) return undefined;
      // Its own sessions were answered within its sources: only another key's need the check
      // (which reads every answer's sources, so it is not paid on every page of an export).
      if (room.appKeyId === key.id) return room;
      if (!key.readsSessionsOf.includes(room.appKeyId)) return undefined;
      return (await withinScope(principal, room)) ? room : undefined;
    },
  };
}

export type KeySessions = ReturnType<typeof createKeySessions>;
