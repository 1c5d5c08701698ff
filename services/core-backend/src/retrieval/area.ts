/**
 * The retrieval area: the one `retrieve(member, query, scope)` every answer and search goes
 * through, over the knowledge index it is given (the index is shared infrastructure: documents,
 * audios and deletion write it), and the search route.
 */
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { CallerOf } from '../workspaces/caller';
import type { Workspaces } from '../workspaces/workspaces';
import type { KnowledgeIndex } from './knowledge-index';
import { createRetriever, type Retrieve, type TopicDocuments } from './retriever';
import { searchRoutes } from './routes';
import { createSearch } from './search';

export function retrievalArea(deps: {
  knowledge: KnowledgeIndex;
  access: AccessLists;
  workspaces: Pick<Workspaces, 'access' | 'get'>;
  topicDocuments: TopicDocuments;
  callerOf: CallerOf;
}): { area: Area; retrieve: Retrieve } {
  const retrieve = createRetriever(deps);
  const search = createSearch({ workspaces: deps.workspaces, retrieve });
  return { area: { routes: searchRoutes({ search, callerOf: deps.callerOf }) }, retrieve };
}
