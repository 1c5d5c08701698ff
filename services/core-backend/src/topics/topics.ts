/**
 * Topics: named groups of documents a chat can be pointed at. A topic's access list says who may
 * use it; it only ever hands out the documents the user may use themselves (`documentsOf`).
 */
import { badRequest, HttpError } from '@pelita/kit';
import type { AccessLists, ResourceType } from '../access/access-lists';
import { knowledgeRows } from '../access/knowledge-rows';
import type { Actor, MemberCheck } from '../workspaces/actor';
import { conflictOnUnique } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { TopicRecord, TopicRepository, Visibility } from './topic-repository';

const taken = conflictOnUnique('A topic of that name exists');

export function createTopics(
  repository: TopicRepository,
  access: AccessLists,
  workspaces: MemberCheck,
) {
  // Reading a topic asks `knowledge.read`, changing one `knowledge.write`.
  const rows = knowledgeRows<TopicRecord>({
    access,
    workspaces,
    type: 'topic',
    read: (id) => repository.byId(id),
  });
  const { find, reader, writer } = rows;

  const visibleTo =
    (member: Membership, type: ResourceType): Visibility =>
    (alias, values) =>
      access.visibleSql(member, type, alias, values);

  return {
    find: rows.show,
    list: (actor: Actor, paging: Paging) => rows.page(actor, () => repository.listing, paging),
    async create(actor: Actor, input: { name: string; description: string }) {
      const member = await writer(actor);
      return rows.create(member, (client, id) =>
        repository
          .insert(client, {
            id,
            workspace_id: member.workspaceId,
            name: input.name,
            description: input.description,
            created_by: member.userId,
          })
          .catch(taken),
      );
    },
    async update(actor: Actor, id: string, changes: { name?: string; description?: string }) {
      const member = await writer(actor);
      await find(member, id);
      await repository.update(id, changes).catch(taken);
      return find(member, id);
    },
    remove: (actor: Actor, id: string) =>
      rows.remove(actor, id, (topicId) => repository.remove(topicId)),
    /** The topic's documents the member may use, newest first. */
    async documents(actor: Actor, id: string, paging: Paging) {
      const member = await reader(actor);
      await find(member, id);
      return repository.documents(id, visibleTo(member, 'document'), paging);
    },
    /** Adds documents the member may use, of the same workspace (400 naming any other); the topic. */
    async addDocuments(actor: Actor, id: string, documentIds: string[]) {
      const member = await writer(actor);
      await find(member, id);
      for (const documentId of documentIds) {
        if (!(await access.canUse(member, 'document', documentId))) {
          throw badRequest(`No document ${documentId} you may use in this workspace`);
        }
      }
      await repository.addDocuments(id, documentIds, member.userId);
      return find(member, id);
    },
    async removeDocument(actor: Actor, id: string, documentId: string) {
      const member = await writer(actor);
      await find(member, id);
      if (!(await repository.removeDocument(id, documentId))) {
        throw new HttpError(
          404,
          'document_not_found',
          `The document ${documentId} is not in the topic`,
        );
      }
    },
    /** The documents of these topics the member may use (topics they may not use give nothing). */
    documentsOf: (member: Membership, topicIds: string[]): Promise<string[]> =>
      repository.documentsOf(member.workspaceId, topicIds, {
        topic: visibleTo(member, 'topic'),
        document: visibleTo(member, 'document'),
      }),
  };
}

export type Topics = ReturnType<typeof createTopics>;
