/**
 * Reports: the workspace's default `report` system prompt (or a built-in one) applied by the
 * model to a room's conversation or a topic's documents, the input cut at
 * `MAX_CHAR_GENERATE_REPORT` characters (the seed's limit) and to what the model's context takes
 * (`context-fit.ts`); the answer says when it was cut.
 */
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Topics } from '../topics/topics';
import type { ResolveModel, SystemPrompt } from './answer-pipeline';
import type { ChatRepository, Room } from './chat-repository';
import { fitText, promptBudget } from './context-fit';
import type { ChatTurn, ModelClient } from './model-client';

const DEFAULT_REPORT_PROMPT =
  'Write a structured report of the material below: a short summary, the key points as a list, and any open questions. Use only what the material says.';

export interface Report {
  report: string;
  model: string;
  /** Characters of material given to the model, and whether more had to be left out. */
  characters: number;
  truncated: boolean;
}

export interface ReportDeps {
  /** A room's report takes `chat` (and the room being the caller's), a topic's `knowledge.read`. */
  workspaces: MemberCheck;
  topics: Pick<Topics, 'documents'>;
  chats: ChatRepository;
  knowledge: KnowledgeIndex;
  models: ModelClient;
  resolveModel: ResolveModel;
  systemPrompt: SystemPrompt;
  maxCharacters: number;
  temperature: number;
}

export function createReports(deps: ReportDeps) {
  async function write(
    workspaceId: string,
    material: string,
    signal?: AbortSignal,
  ): Promise<Report> {
    const prompt = (await deps.systemPrompt(workspaceId, 'report')) ?? DEFAULT_REPORT_PROMPT;
    const choice = await deps.resolveModel(workspaceId, null);
    const context = await deps.models.contextLength(choice);
    const turns = (text: string): ChatTurn[] => [
      { role: 'system', content: prompt },
      { role: 'user', content: `<document>\n${text}\n</document>` },
    ];
    const budget = context === undefined ? undefined : promptBudget(context);
    const input = fitText(material, deps.maxCharacters, turns, budget);
    const truncated = input.length < material.length;
    const answer = await deps.models.stream(choice, turns(input), {
      temperature: deps.temperature,
      ...(signal ? { signal } : {}),
    });
    let report = '';
    for await (const delta of answer.deltas) report += delta;
    return { report, model: choice.model, characters: input.length, truncated };
  }

  return {
    /** A report of the actor's room's conversation, oldest first. */
    async ofRoom(actor: Actor, roomId: string, signal?: AbortSignal): Promise<Report> {
      const { workspaceId, userId } = await memberOf(deps.workspaces, actor, 'chat');
      const room: Room = await deps.chats.room(workspaceId, userId, roomId);
      const messages = await deps.chats.lastExchanges(room, 10_000);
      const material = messages
        .map((m) => `Question: ${m.chat}\nAnswer: ${m.response}`)
        .join('\n\n');
      return write(room.workspaceId, material, signal);
    },
    /** A report of the text of a topic's documents the actor may use (the first 200), in order. */
    async ofTopic(actor: Actor, topicId: string, signal?: AbortSignal) {
      const member = await memberOf(deps.workspaces, actor, 'knowledge.read');
      const { rows: documents } = await deps.topics.documents(actor, topicId, {
        page: 1,
        limit: 200,
      });
      const parts: string[] = [];
      let length = 0;
      for (const document of documents) {
        if (length > deps.maxCharacters) break;
        const passages = await deps.knowledge.passagesOf('document', document.id, 'chunk', {
          page: 1,
          limit: 10_000,
        });
        const text = `# ${document.name}\n\n${passages.rows.map((p) => p.text).join('\n\n')}`;
        parts.push(text);
        length += text.length;
      }
      return write(member.workspaceId, parts.join('\n\n'), signal);
    },
  };
}

export type Reports = ReturnType<typeof createReports>;
