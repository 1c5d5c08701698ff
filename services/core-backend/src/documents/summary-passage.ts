/** A document's or audio's summary as the one `summary` passage retrieval finds for it. */
import type { KnowledgeIndex } from '../retrieval/knowledge-index';

export function replaceSummaryPassage(
  knowledge: Pick<KnowledgeIndex, 'replace'>,
  resource: { type: 'document' | 'audio'; id: string; workspaceId: string; title: string },
  summary: string,
): Promise<void> {
  return knowledge.replace(
    { resourceType: resource.type, resourceId: resource.id },
    ['summary'],
    [
      {
        workspaceId: resource.workspaceId,
        resourceType: resource.type,
        resourceId: resource.id,
        kind: 'summary',
        position: 0,
        title: resource.title,
        text: summary,
      },
    ],
  );
}
