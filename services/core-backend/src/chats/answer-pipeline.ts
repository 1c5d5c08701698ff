/**
 * One answer: the question is stored (`answering`), the passages the member may use are
 * retrieved (narrowed to the room's sources), the room's databases and APIs are asked
 * (text-to-SQL through db-proxy, text-to-API through http-proxy: `source-lookups.ts`), the
 * prompt (`answer-prompt.ts`) is the workspace's `persistent` system prompt, the room's last
 * exchanges, and the question with the passages and findings — fitted to the model's context,
 * oldest exchanges and then lowest-ranked passages left out (`context-fit.ts`) — and the model's
 * answer streams back while it is written. Whatever happens, the stored message ends `complete`,
 * `partial` (the model failed mid-answer: what came is kept) or `failed`.
 */
import { toHttpError } from '@pelita/kit';
import type { Hit } from '../retrieval/knowledge-index';
import type { Retrieve } from '../retrieval/retriever';
import type { WorkspaceSettings } from '../workspaces/workspace-settings';
import type { Membership } from '../workspaces/workspaces';
import { answerTurns, type PassagesIn } from './answer-prompt';
import { fitTurns, promptBudget } from './context-fit';
import type { ChatRepository, KnowledgeSource, Message, Room } from './chat-repository';
import type { ChatTurn, ModelChoice, ModelClient } from './model-client';
import type { Finding, SourceLookups } from './source-lookups';

/** The workspace's default system prompt of a type (`persistent`, `report`), if any. */
export type SystemPrompt = (workspaceId: string, type: string) => Promise<string | undefined>;
/** The model a room answers with: the room's, else the workspace's default, else the install's. */
export type ResolveModel = (workspaceId: string, model: string | null) => Promise<ModelChoice>;

export interface AnswerPipelineDeps {
  chats: ChatRepository;
  /** The workspace's settings (top_k, retrieval mode, temperature, history length). */
  workspaceSettings: (workspaceId: string) => Promise<WorkspaceSettings>;
  retrieve: Retrieve;
  models: ModelClient;
  resolveModel: ResolveModel;
  systemPrompt: SystemPrompt;
  /** The room's databases and APIs, asked before the answer. */
  lookups: SourceLookups;
  /** MAXIMUM_CHAT_PER_ROOM: earlier exchanges sent with a question, unless the workspace says. */
  maximumChatPerRoom: number;
  /** CHAT_PASSAGES_IN: the turn the passages go in (`answer-prompt.ts`). */
  passagesIn: PassagesIn;
}

export interface AnswerRequest {
  member: Membership;
  room: Room;
  question: string;
  /** The caller's temperature instead of the workspace's (the OpenAI-compatible endpoint). */
  temperature?: number;
  /**
   * Turns the caller sends itself before the question (the OpenAI-compatible endpoint); when
   * given, they replace the room's stored exchanges as the conversation so far.
   */
  earlierTurns?: ChatTurn[];
  signal?: AbortSignal;
}

export interface StartedAnswer {
  message: Message;
  sources: Hit[];
  model: string;
  /** The answer's text as it comes; ends with the stored message (or throws after storing it). */
  deltas: AsyncIterable<string>;
  /** The stored message once the answer ended, with token counts when the server gave them. */
  finished(): Promise<{
    message: Message;
    usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  }>;
}

export function createAnswerPipeline(deps: AnswerPipelineDeps) {
  /** The passages the member may use, narrowed to the room's sources when it names any. */
  function retrieve(request: AnswerRequest, settings: WorkspaceSettings): Promise<Hit[]> {
    const sources = request.room.knowledgeSources;
    const ids = (type: string) => sources.filter((s) => s.type === type).flatMap((s) => s.topic_id);
    const narrows = sources.some((s) => s.type === 'topic' || s.type === 'document');
    return deps.retrieve(request.member, request.question, {
      settings,
      ...(narrows ? { narrowTo: { documentIds: ids('document'), topicIds: ids('topic') } } : {}),
    });
  }

  /** The turns sent to the model, fitted to its context when that is known (`context-fit.ts`). */
  async function prompt(
    request: AnswerRequest,
    settings: WorkspaceSettings,
    choice: ModelChoice,
    passages: Hit[],
    findings: Finding[],
  ): Promise<ChatTurn[]> {
    const persistent = await deps.systemPrompt(request.member.workspaceId, 'persistent');
    const historyCount = request.earlierTurns?.length
      ? 0
      : (settings.chat_history_count ?? deps.maximumChatPerRoom);
    const history = await deps.chats.lastExchanges(request.room, historyCount);
    const earlier = [
      ...history.flatMap((m): ChatTurn[] => [
        { role: 'user', content: m.chat },
        { role: 'assistant', content: m.response },
      ]),
      ...(request.earlierTurns ?? []),
    ];
    const build = (kept: ChatTurn[], used: Hit[]) =>
      answerTurns(
        { persistent, question: request.question, passages: used, findings, earlier: kept },
        deps.passagesIn,
      );
    const context = await deps.models.contextLength(choice);
    if (context === undefined) return build(earlier, passages);
    return fitTurns(build, earlier, passages, promptBudget(context));
  }

  return {
    /**
     * Stores the question, retrieves, and starts the model. Throws (an HttpError; the message is
     * stored `failed`) when the model cannot start; a failure later ends `deltas` with the error.
     */
    async start(request: AnswerRequest): Promise<StartedAnswer> {
      const settings = await deps.workspaceSettings(request.member.workspaceId);
      const sources = await retrieve(request, settings);
      const choice = await deps.resolveModel(request.member.workspaceId, request.room.model);
      const findings = await deps.lookups.find(
        request.member,
        request.room.knowledgeSources,
        request.question,
        choice,
        request.signal,
      );
      const detail = sourceDetail(request.room.knowledgeSources, sources, findings);
      const message = await deps.chats.addMessage(request.room, {
        chat: request.question,
        llm: choice.model,
        knowledgeSourceDetail: detail,
      });
      let answer;
      try {
        const turns = await prompt(request, settings, choice, sources, findings);
        answer = await deps.models.stream(choice, turns, {
          temperature: request.temperature ?? settings.temperature,
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (err) {
        const failure = toHttpError(err);
        await deps.chats.finishMessage(message.id, {
          response: '',
          status: 'failed',
          error: failure.message,
        });
        throw failure;
      }
      let settle: (value: Awaited<ReturnType<StartedAnswer['finished']>>) => void;
      let fail: (err: unknown) => void;
      const finished = new Promise<Awaited<ReturnType<StartedAnswer['finished']>>>(
        (resolve, reject) => {
          settle = resolve;
          fail = reject;
        },
      );
      // Nobody may be waiting on it when the stream is abandoned.
      finished.catch(() => undefined);
      const streamed = answer;
      async function* deltas(): AsyncGenerator<string> {
        let text = '';
        try {
          for await (const delta of streamed.deltas) {
            text += delta;
            yield delta;
          }
        } catch (err) {
          const failure = toHttpError(err);
          await deps.chats.finishMessage(message.id, {
            response: text,
            status: text ? 'partial' : 'failed',
            error: failure.message,
          });
          fail(failure);
          throw failure;
        }
        const stored = await deps.chats.finishMessage(message.id, {
          response: text,
          status: 'complete',
        });
        const usage = streamed.usage();
        settle({ message: stored, ...(usage ? { usage } : {}) });
      }
      return { message, sources, model: choice.model, deltas: deltas(), finished: () => finished };
    },
  };
}

export type AnswerPipeline = ReturnType<typeof createAnswerPipeline>;

/**
 * The seed's `knowledge_source_detail`: the room's topics, and per type the resources the answer
 * was given something from (passages of documents and audios, findings of databases and APIs).
 */
function sourceDetail(
  roomSources: KnowledgeSource[],
  hits: Hit[],
  findings: Finding[],
): KnowledgeSource[] {
  const detail: KnowledgeSource[] = roomSources
    .filter((source) => source.type === 'topic')
    .map((source) => ({ type: 'topic', topic_id: source.topic_id }));
  const used = [
    ...hits.map((hit) => ({ type: hit.resourceType, id: hit.resourceId })),
    ...findings.filter((finding) => finding.ok),
  ];
  for (const type of ['document', 'audio', 'database', 'api']) {
    const ids = [...new Set(used.filter((u) => u.type === type).map((u) => u.id))];
    if (ids.length > 0) detail.push({ type, topic_id: ids });
  }
  return detail;
}
