/** Shapes of rooms and chat message records (the seed's record, plus `status` and `error`). */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import type { Room } from './chat-repository';
import { Name, pageOf, Timestamps } from '../http-schemas';
import { responseOf } from '../row-schemas';

export const KnowledgeSource = z.object({
  /** `topic`, `document`, `database` or `api`: what the ids in `topic_id` name. */
  type: z.enum(['topic', 'document', 'database', 'api']),
  /** The ids of that type (the seed's field name, whatever the type). */
  topic_id: z.array(z.uuid()).max(200),
});

export const RoomBody = z.object({
  name: Name.default('New chat'),
  knowledge_sources: z.array(KnowledgeSource).max(20).default([]),
  /** A model of the workspace's model management; unset: the workspace's default. */
  model: storedText().min(1).max(200).nullable().default(null),
});
export const RoomPatch = z
  .object({
    name: Name,
    knowledge_sources: z.array(KnowledgeSource).max(20),
    model: storedText().min(1).max(200).nullable(),
  })
  .partial();
export const RoomParams = z.object({ workspaceId: z.uuid(), roomId: z.uuid() });
export const MessageParams = RoomParams.extend({ messageId: z.uuid() });
/** How long a question may be (characters). */
const QUESTION_MAX = 20_000;
export const QuestionBody = z.object({ chat: storedText().trim().min(1).max(QUESTION_MAX) });
export const ReactionBody = z.object({ reaction: z.enum(['like', 'dislike']).nullable() });

export const RoomResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  session_id: z.string(),
  name: z.string(),
  knowledge_sources: z.array(KnowledgeSource),
  model: z.string().nullable(),
  message_count: z.number().int(),
  ...Timestamps,
});
export const RoomList = pageOf(RoomResponse);

export const toRoomResponse = responseOf(RoomResponse, (room: Room) => ({
  knowledge_sources: room.knowledgeSources as z.infer<typeof KnowledgeSource>[],
}));

/** The seed's chat message record, plus `status` (answering, complete, partial, failed) and `error`. */
export const ChatMessageRecord = z.object({
  session_id: z.string(),
  workspace_id: z.string(),
  chat: z.string(),
  like: z.boolean(),
  dislike: z.boolean(),
  id: z.string(),
  llm: z.string(),
  response: z.string(),
  knowledge_source_detail: z.array(z.object({ type: z.string(), topic_id: z.array(z.string()) })),
  ...Timestamps,
  status: z.enum(['answering', 'complete', 'partial', 'failed']),
  error: z.string().nullable(),
});
export const MessageList = pageOf(ChatMessageRecord);

export const toChatMessageRecord = responseOf(ChatMessageRecord);
