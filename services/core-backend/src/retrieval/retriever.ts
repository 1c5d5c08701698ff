/**
 * The one way to retrieve, `retrieve(member, query, scope)`: passages of what the member may use
 * — the access lists, narrowed to an app key's sources when a key acts — and, when asked, only of
 * the given documents and of the documents of the given topics. Search, room chat, the open API's chat and the widget all come
 * here, so none of them can retrieve past the access lists.
 */
import type { AccessLists } from '../access/access-lists';
import type { WorkspaceSettings } from '../workspaces/workspace-settings';
import type { Membership } from '../workspaces/workspaces';
import type { Hit, KnowledgeIndex } from './knowledge-index';

/** The documents of the given topics the member may use (topics module). */
export type TopicDocuments = (member: Membership, topicIds: string[]) => Promise<string[]>;

/** Where to look: the workspace's retrieval settings, narrowed when asked. */
export interface RetrieveScope {
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
  return async function retrieve(
    member: Membership,
    query: string,
    scope: RetrieveScope,
  ): Promise<Hit[]> {
    const { narrowTo } = scope;
    const documents = narrowTo && [
      ...new Set([
        ...narrowTo.documentIds,
        ...(narrowTo.topicIds.length ? await deps.topicDocuments(member, narrowTo.topicIds) : []),
      ]),
    ];
    return deps.knowledge.search({
      workspaceId: member.workspaceId,
      query,
      visible: {
        document: await deps.access.visible(member, 'document'),
        audio: await deps.access.visible(member, 'audio'),
      },
      ...(documents ? { documents } : {}),
      k: scope.k ?? scope.settings.top_k,
      mode: scope.settings.retrieval_mode,
    });
  };
}

export type Retrieve = ReturnType<typeof createRetriever>;
