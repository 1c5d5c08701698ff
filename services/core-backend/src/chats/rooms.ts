/**
 * A member's chat rooms and their messages, as the member reaches them: every call takes `chat`,
 * and a room is private to its user (anyone else, owners included, is told it does not exist).
 * Every source a room names must be one the member may use (400 otherwise). Asking in a room
 * starts the answer pipeline as the member.
 */
import { badRequest } from '@pelita/kit';
import type { AccessLists, ResourceType } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { Membership } from '../workspaces/workspaces';
import type { AnswerPipeline, StartedAnswer } from './answer-pipeline';
import type { ChatRepository, KnowledgeSource, Room } from './chat-repository';

type RoomChanges = Parameters<ChatRepository['updateRoom']>[1];

export function createRooms(deps: {
  workspaces: MemberCheck;
  access: AccessLists;
  chats: ChatRepository;
  answers: Pick<AnswerPipeline, 'start'>;
}) {
  const { chats } = deps;
  const chatter = (actor: Actor) => memberOf(deps.workspaces, actor, 'chat');

  async function checkSources(member: Membership, sources: KnowledgeSource[]): Promise<void> {
    for (const source of sources) {
      const type = source.type as ResourceType;
      for (const id of source.topic_id) {
        if (!(await deps.access.canUse(member, type, id))) {
          throw badRequest(`No ${type} ${id} you may use in this workspace`);
        }
      }
    }
  }

  /** The member and their room (404 for anyone else's). */
  async function open(actor: Actor, roomId: string): Promise<{ member: Membership; room: Room }> {
    const member = await chatter(actor);
    return { member, room: await chats.room(actor.workspaceId, member.userId, roomId) };
  }

  return {
    async list(actor: Actor, page: number, limit: number) {
      const member = await chatter(actor);
      return chats.rooms(actor.workspaceId, member.userId, page, limit);
    },
    async create(
      actor: Actor,
      input: { name: string; knowledgeSources: KnowledgeSource[]; model: string | null },
    ): Promise<Room> {
      const member = await chatter(actor);
      await checkSources(member, input.knowledgeSources);
      return chats.createRoom({ workspaceId: actor.workspaceId, userId: member.userId, ...input });
    },
    find: async (actor: Actor, roomId: string): Promise<Room> => (await open(actor, roomId)).room,
    async update(actor: Actor, roomId: string, changes: RoomChanges): Promise<Room> {
      const { member, room } = await open(actor, roomId);
      if (changes.knowledgeSources) await checkSources(member, changes.knowledgeSources);
      return chats.updateRoom(room, changes);
    },
    async remove(actor: Actor, roomId: string): Promise<void> {
      await chats.deleteRoom((await open(actor, roomId)).room);
    },
    async messages(actor: Actor, roomId: string, page: number, limit: number) {
      const { room } = await open(actor, roomId);
      return { room, messages: await chats.page(room, page, limit) };
    },
    async react(
      actor: Actor,
      roomId: string,
      messageId: string,
      reaction: 'like' | 'dislike' | null,
    ) {
      return chats.react((await open(actor, roomId)).room, messageId, reaction);
    },
    async deleteMessage(actor: Actor, roomId: string, messageId: string): Promise<void> {
      await chats.deleteMessage((await open(actor, roomId)).room, messageId);
    },
    /** Asks in the room; the answer streams as the pipeline gives it. */
    async ask(
      actor: Actor,
      roomId: string,
      question: string,
      signal?: AbortSignal,
    ): Promise<StartedAnswer> {
      const { member, room } = await open(actor, roomId);
      return deps.answers.start({ member, room, question, ...(signal ? { signal } : {}) });
    },
    /** Asks again from an edited question: that message and the later ones go first. */
    async askAgain(
      actor: Actor,
      roomId: string,
      messageId: string,
      question: string,
      signal?: AbortSignal,
    ): Promise<StartedAnswer> {
      const { member, room } = await open(actor, roomId);
      await chats.truncateFrom(room, messageId);
      return deps.answers.start({ member, room, question, ...(signal ? { signal } : {}) });
    },
  };
}

export type Rooms = ReturnType<typeof createRooms>;
