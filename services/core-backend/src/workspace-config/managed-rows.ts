/**
 * What integrations and iframes decide alike: every member-facing function takes
 * `workspace.manage`, and a row is found, listed and removed in the actor's workspace only
 * (another workspace's id is the same 404 as none); a name is unique in the workspace.
 */
import { HttpError } from '@pelita/kit';
import type pg from 'pg';
import { conflictOnUnique } from '../db/database';
import type { Paging } from '../paging';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { workspaceRows } from './workspace-rows-repository';

export function managedRows<Row extends pg.QueryResultRow>(
  workspaces: MemberCheck,
  rows: Pick<ReturnType<typeof workspaceRows<Row>>, 'row' | 'page' | 'delete'>,
  kind: 'iframe' | 'integration',
) {
  const notFound = (id: string) =>
    new HttpError(404, `${kind}_not_found`, `The ${kind} ${id} does not exist`);
  async function find(workspaceId: string, id: string): Promise<Row> {
    const row = await rows.row(workspaceId, id);
    if (!row) throw notFound(id);
    return row;
  }
  const manager = (actor: Actor) => memberOf(workspaces, actor, 'workspace.manage');
  return {
    manager,
    notFound,
    /** A unique violation (the name taken) as 409, anything else as it came. */
    taken: conflictOnUnique(`The workspace has an ${kind} of that name`),
    /** The row of a workspace already decided. */
    find,
    show: async (actor: Actor, id: string) => find((await manager(actor)).workspaceId, id),
    list: async (actor: Actor, paging: Paging) =>
      rows.page((await manager(actor)).workspaceId, paging),
    remove: async (actor: Actor, id: string): Promise<void> => {
      const { workspaceId } = await manager(actor);
      if (!(await rows.delete(workspaceId, id))) throw notFound(id);
    },
  };
}
