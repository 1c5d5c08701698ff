/**
 * Search as a member asks it: `knowledge.read` in the workspace first, then the one retrieval
 * with the workspace's settings (`top_k`, `retrieval_mode`), over what the member may use.
 */
import { memberOf, type Actor } from '../workspaces/actor';
import type { Workspaces } from '../workspaces/workspaces';
import type { Hit } from './knowledge-index';
import type { Retrieve } from './retriever';

export interface SearchRequest {
  query: string;
  /** Only documents of these topics (the member's own topics). */
  topicIds?: string[];
  /** How many passages; the workspace's `top_k` otherwise. */
  k?: number;
}

export function createSearch(deps: {
  workspaces: Pick<Workspaces, 'access' | 'get'>;
  retrieve: Retrieve;
}) {
  return async function search(actor: Actor, request: SearchRequest): Promise<Hit[]> {
    const member = await memberOf(deps.workspaces, actor, 'knowledge.read');
    const { settings } = await deps.workspaces.get(actor.workspaceId);
    return deps.retrieve(member, request.query, {
      settings,
      ...(request.topicIds ? { narrowTo: { documentIds: [], topicIds: request.topicIds } } : {}),
      ...(request.k ? { k: request.k } : {}),
    });
  };
}

export type Search = ReturnType<typeof createSearch>;
