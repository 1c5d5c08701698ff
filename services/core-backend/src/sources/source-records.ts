/**
 * What databases and APIs decide alike. Reading one takes `knowledge.read`, changing one
 * `knowledge.write`; a row is read only through its access list (the repository takes the
 * member: a source the member may not use is answered 404, like one that does not exist),
 * listings go through `access.page`, and a new source is created with its creator on its list.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { Membership } from '../workspaces/workspaces';
import type { SourceTable } from './source-repository';

/** A unique violation (a name taken) as 409, anything else as it came. */
export const taken = (what: string) => (err: unknown) => {
  throw isUniqueViolation(err) ? conflict(`${what} of that name exists`) : err;
};

export function sourceRecords<Row extends pg.QueryResultRow, Columns extends object>(deps: {
  access: AccessLists;
  workspaces: MemberCheck;
  type: 'api' | 'database';
  /** How the answers name one (`API`, `database`) and a taken name (`An API`). */
  noun: string;
  article: 'A' | 'An';
  table: SourceTable<Row, Columns>;
  /** How a page is ordered (the table's alias is `s`). */
  orderBy: string;
}) {
  const { access, type, table } = deps;
  const nameTaken = taken(`${deps.article} ${deps.noun}`);

  /** The source, when the member may use it; 404 otherwise, as for one that does not exist. */
  async function find(member: Membership, id: string): Promise<Row> {
    // The access lists' answer (404 `<type>_not_found`) first; the read itself filters again.
    await access.requireVisible(member, type, id);
    const row = await table.row(member, id);
    if (!row)
      throw new HttpError(404, `${type}_not_found`, `The ${deps.noun} ${id} does not exist`);
    return row;
  }
  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  return {
    reader,
    writer,
    find,
    async page(actor: Actor, paging: Paging) {
      return access.page<Row>(
        await reader(actor),
        type,
        { alias: 's', orderBy: deps.orderBy },
        paging,
      );
    },
    /** Creates the source with the member on its list; the new row. */
    async create(member: Membership, columns: Columns): Promise<Row> {
      const id = randomUUID();
      await access.createGranted(member, type, id, (client) =>
        table.insert(client, id, member, columns).catch(nameTaken),
      );
      return find(member, id);
    },
    /** Writes the columns of a source the member has found; the changed row. */
    async update(member: Membership, id: string, columns: Columns): Promise<Row> {
      await table.update(id, columns).catch(nameTaken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await table.delete(id);
      await access.forget(type, id);
    },
  };
}
