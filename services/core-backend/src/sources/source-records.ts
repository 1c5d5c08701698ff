/**
 * What databases and APIs decide alike, beyond what every knowledge resource does
 * (`access/knowledge-rows.ts`): a row is read only through its access list (the repository takes
 * the member: a source the member may not use is answered 404, like one that does not exist), and
 * its name is unique in the workspace.
 */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { knowledgeRows } from '../access/knowledge-rows';
import { conflictOnUnique } from '../db/database';
import type { Paging } from '../paging';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { Membership } from '../workspaces/workspaces';
import type { SourceTable } from './source-repository';

/** A unique violation (a name taken) as 409, anything else as it came. */
export const taken = (what: string) => conflictOnUnique(`${what} of that name exists`);

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
  const { table } = deps;
  const nameTaken = taken(`${deps.article} ${deps.noun}`);
  // The access lists' answer (404 `<type>_not_found`) first; the read itself filters again.
  const rows = knowledgeRows<Row>({ ...deps, read: (id, member) => table.row(member, id) });
  const { find } = rows;

  return {
    reader: rows.reader,
    writer: rows.writer,
    find,
    page: (actor: Actor, paging: Paging) =>
      rows.page(actor, () => ({ alias: 's', orderBy: deps.orderBy }), paging),
    /** Creates the source with the member on its list; the new row. */
    create: (member: Membership, columns: Columns): Promise<Row> =>
      rows.create(member, (client, id) =>
        table.insert(client, id, member, columns).catch(nameTaken),
      ),
    /** Writes the columns of a source the member has found; the changed row. */
    async update(member: Membership, id: string, columns: Columns): Promise<Row> {
      await table.update(id, member.workspaceId, columns).catch(nameTaken);
      return find(member, id);
    },
    remove: (actor: Actor, id: string) =>
      rows.remove(actor, id, (sourceId) => table.delete(sourceId)),
  };
}
