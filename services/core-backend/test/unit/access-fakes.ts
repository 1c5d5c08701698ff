/**
 * Small fakes for the access decisions of the areas: a workspace with one viewer (who may read
 * and chat) and one outsider, and a pool and access lists that record every use, so a test can
 * say a refused call never reached the data.
 */
import { forbidden, notFound, type HttpError } from '@pelita/kit';
import type pg from 'pg';
import type { MemberCheck } from '../../src/workspaces/actor';
import type { AccessLists } from '../../src/access/access-lists';
import type { Permission } from '../../src/workspaces/permissions';

export const WORKSPACE = '00000000-0000-4000-8000-000000000001';
export const viewer = { userId: 'viewer', workspaceId: WORKSPACE };
export const outsider = { userId: 'outsider', workspaceId: WORKSPACE };

const VIEWER: Permission[] = ['knowledge.read', 'chat'];

/** `workspaces.access` of a workspace whose only member is a viewer. */
export function fakeWorkspaces(): MemberCheck & { asked: (Permission | undefined)[] } {
  const asked: (Permission | undefined)[] = [];
  return {
    asked,
    access: (workspaceId: string, userId: string, permission?: Permission) => {
      asked.push(permission);
      if (workspaceId !== WORKSPACE || userId !== viewer.userId) {
        return Promise.reject(notFound(`No workspace ${workspaceId}`));
      }
      if (permission && !VIEWER.includes(permission)) {
        return Promise.reject(forbidden(`Your workspace role viewer does not allow ${permission}`));
      }
      return Promise.resolve({ workspaceId, userId, role: 'viewer', permissions: VIEWER });
    },
  };
}

/** A pool, access lists and repositories that count every use (and answer nothing). */
export function untouched() {
  const uses: string[] = [];
  const record =
    (name: string) =>
    (..._args: unknown[]) => {
      uses.push(name);
      return Promise.reject(new Error(`${name} was reached`));
    };
  const pool = { query: record('query'), connect: record('connect') } as unknown as pg.Pool;
  const access = new Proxy({} as AccessLists, {
    get: (_target, key) => record(`access.${String(key)}`),
  });
  /** An area's repository: any of its functions counts as a use. */
  const repository = <R>() =>
    new Proxy({} as R & object, { get: (_target, key) => record(`repository.${String(key)}`) });
  return { pool, access, repository, uses };
}

/** What a refused call rejects with: an HttpError of this status. */
export const refused = (status: number) =>
  expect.objectContaining({ status }) as unknown as HttpError;
