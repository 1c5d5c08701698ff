/** A fake of the role-data transaction: runs the work and records the targets of each committed change. */
import type { Db } from '@pelita/kit';
import type { RoleDataChanges } from '../../src/policy-sync/role-data-changes';

export function fakeRoleData(): RoleDataChanges & { committed: string[][] } {
  const committed: string[][] = [];
  return {
    committed,
    async apply(targets, work) {
      // The fakes of the repositories ignore the transaction.
      const result = await work({} as Db);
      if (targets.length > 0) committed.push([...targets]);
      return result;
    },
  };
}
