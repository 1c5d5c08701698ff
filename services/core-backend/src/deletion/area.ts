/**
 * The deletion area: no routes. The deletions the workspaces, documents and audios call, and
 * their worker, which the service starts after the migrations.
 */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { createDeletionRepository } from './deletion-repository';
import { createDeletions, type DeletionsOptions } from './deletions';

export function deletionArea(
  deps: Omit<DeletionsOptions, 'jobs'> & { pool: pg.Pool; access: Pick<AccessLists, 'forget'> },
) {
  const { pool, access, ...options } = deps;
  const jobs = createDeletionRepository(pool, { forgetAccess: access.forget });
  return { deletions: createDeletions({ ...options, jobs }) };
}
