/**
 * Topics: named groups of documents a chat can be pointed at. A topic's access list says who may
 * use it; it only ever hands out the documents the user may use themselves (`documentsOf`).
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, HttpError } from '@pelita/kit';
import type { AccessLists, ResourceType } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { TopicRecord, TopicRepository, Visibility } from './topic-repository';

const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A topic of that name exists') : err;
};

export function createTopics(
  repository: TopicRepository,
  access: AccessLists,
  workspaces: MemberCheck,
) {
  async function find(member: Membership, id: string): Promise<TopicRecord> {
    await access.requireVisible(member, 'topic', id);
    const topic = await repository.byId(id);
    if (!topic) throw new HttpError(404, 'topic_not_found', `The topic ${id} does not exist`);
    return topic;
  }

  const visibleTo =
    (member: Membership, type: ResourceType): Visibility =>
    (alias, values) =>
      access.visibleSql(member, type, alias, values);

  // Reading a topic asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    async list(actor: Actor, paging: Paging) {
      return access.page<TopicRecord>(await reader(actor), 'topic', repository.listing, paging);
    },
    async create(actor: Actor, input: { name: string; description: string }) {
      const member = await writer(actor);
      const id = randomUUID();
      await access.createGranted(member, 'topic', id, (client) =>
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
      return find(member, id);
    },
    async update(actor: Actor, id: string, changes: { name?: string; description?: string }) {
      const member = await writer(actor);
      await find(member, id);
      await repository.update(id, changes).catch(taken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await repository.remove(id);
      await access.forget('topic', id);
    },
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
