/**
 * The one way to retrieve: passages of what the member may use — the access lists, narrowed to an
 * app key's sources when a key acts — and, when asked, only of the given documents and of the
 * documents of the given topics. Search, room chat, the open API's chat and the widget all come
 * here, so none of them can retrieve past the access lists.
 */
import type { AccessLists } from '../access/access-lists';
import type { WorkspaceSettings } from '../workspaces/workspace-settings';
import type { Membership } from '../workspaces/workspaces';
import type { Hit, KnowledgeIndex } from './knowledge-index';

/** The documents of the given topics the member may use (topics module). */
export type TopicDocuments = (member: Membership, topicIds: string[]) => Promise<string[]>;

export interface RetrieveRequest {
  query: string;
  /** Only passages of these documents and of these topics' documents (audios left out). */
  narrowTo?: { documentIds: string[]; topicIds: string[] };
  settings: Pick<WorkspaceSettings, 'top_k' | 'retrieval_mode'>;
  /** How many passages; the workspace's `top_k` otherwise. */
  k?: number;
}

export function createRetriever(deps: {
  knowledge: KnowledgeIndex;
  access: AccessLists;
  topicDocuments: TopicDocuments;
}) {
  return async function retrieve(member: Membership, request: RetrieveRequest): Promise<Hit[]> {
    const { narrowTo } = request;
    const documents = narrowTo && [
      ...new Set([
        ...narrowTo.documentIds,
        ...(narrowTo.topicIds.length ? await deps.topicDocuments(member, narrowTo.topicIds) : []),
      ]),
    ];
    return deps.knowledge.search({
      workspaceId: member.workspaceId,
      query: request.query,
      visible: {
        document: await deps.access.visible(member, 'document'),
        audio: await deps.access.visible(member, 'audio'),
      },
      ...(documents ? { documents } : {}),
      k: request.k ?? request.settings.top_k,
      mode: request.settings.retrieval_mode,
    });
  };
}

export type Retrieve = ReturnType<typeof createRetriever>;
