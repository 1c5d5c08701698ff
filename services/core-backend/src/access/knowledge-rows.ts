/**
 * What every knowledge resource (documents, audios, folders, topics, databases, APIs) decides
 * alike: reading takes `knowledge.read`, changing `knowledge.write`; one row is read only once its
 * access list lets the member use it (404 `<type>_not_found` otherwise, like one that does not
 * exist); a page is read through `access.page`; a new row is made with its creator on its list.
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { Membership } from '../workspaces/workspaces';
import type { AccessLists, Listing, ResourceType } from './access-lists';

export function knowledgeRows<Row extends pg.QueryResultRow>(deps: {
  access: AccessLists;
  workspaces: MemberCheck;
  type: ResourceType;
  /** The row of that id, asked once the access list allowed it (`member`: to filter again). */
  read: (id: string, member: Membership) => Promise<Row | undefined>;
  /** How answers name one (`API`); the type when omitted. */
  noun?: string;
}) {
  const { access, type } = deps;
  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  /** The row, when the member may use it; 404 otherwise, as for one that does not exist. */
  async function find(member: Membership, id: string): Promise<Row> {
    await access.requireVisible(member, type, id);
    const row = await deps.read(id, member);
    if (!row) {
      throw new HttpError(
        404,
        `${type}_not_found`,
        `The ${deps.noun ?? type} ${id} does not exist`,
      );
    }
    return row;
  }

  return {
    reader,
    writer,
    find,
    /** The row, for an actor who may read it. */
    show: async (actor: Actor, id: string) => find(await reader(actor), id),
    /**
     * A page of the rows the actor may read, as the repository's `listing` orders and filters
     * them (asked once the actor may read: no repository is reached before the decision).
     */
    page: async (actor: Actor, listing: () => Listing, paging: Paging) =>
      access.page<Row>(await reader(actor), type, listing(), paging),
    /** Inserts a new row (`insert`, in the transaction that puts the member on its list); the row. */
    async create(
      member: Membership,
      insert: (client: pg.PoolClient, id: string) => Promise<unknown>,
    ): Promise<Row> {
      const id = randomUUID();
      await access.createGranted(member, type, id, (client) => insert(client, id));
      return find(member, id);
    },
    /** Deletes the row (`drop`) for an actor who may change it, and then its access list. */
    async remove(actor: Actor, id: string, drop: (id: string) => Promise<unknown>): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await drop(id);
      await access.forget(type, id);
    },
  };
}
