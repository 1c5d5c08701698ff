/**
 * Fakes for the knowledge areas' services (topics, folders, documents, audios): an editor of
 * one workspace, access lists that let them use everything and record what was asked, and a
 * repository built from the functions a test gives (any other one throws when called).
 */
import type { AccessLists, Listing, ResourceType } from '../../src/access/access-lists';
import type { MemberCheck } from '../../src/workspaces/actor';
import type { Membership } from '../../src/workspaces/workspaces';
import { WORKSPACE } from './access-fakes';

export const editor = { userId: 'editor', workspaceId: WORKSPACE };

export const editorMembership: Membership = {
  workspaceId: WORKSPACE,
  userId: editor.userId,
  role: 'editor',
  permissions: ['knowledge.read', 'knowledge.write', 'chat'],
};

/** `workspaces.access` answering the editor's membership. */
export const editorWorkspace: MemberCheck = {
  access: () => Promise.resolve(editorMembership),
};

/** Access lists that let the member use every resource; `asked` records each call. */
export function openAccess() {
  const asked: Array<[string, ...unknown[]]> = [];
  const client = { query: () => Promise.resolve({ rows: [], rowCount: 1 }) };
  const access = {
    requireVisible: (_m: Membership, type: ResourceType, id: string) => {
      asked.push(['requireVisible', type, id]);
      return Promise.resolve();
    },
    canUse: () => Promise.resolve(true),
    forget: (type: ResourceType, id: string) => {
      asked.push(['forget', type, id]);
      return Promise.resolve();
    },
    visibleSql: (_m: Membership, type: ResourceType, alias: string) => `visible(${type}, ${alias})`,
    page: (_m: Membership, type: ResourceType, listing: Listing) => {
      asked.push(['page', type, listing]);
      return Promise.resolve({ rows: [], total: 0 });
    },
    createGranted: async (
      _m: Membership,
      type: ResourceType,
      id: string,
      insert: (c: typeof client) => Promise<unknown>,
    ) => {
      asked.push(['createGranted', type, id]);
      await insert(client);
    },
  };
  return { access: access as unknown as AccessLists, asked };
}

/** A repository with the given functions; any other one fails the test when called. */
export function fakeRepository<R extends object>(given: Partial<R>): R {
  return new Proxy(given as R, {
    get: (target, key) =>
      key in target
        ? target[key as keyof R]
        : () => Promise.reject(new Error(`repository.${String(key)} was not expected`)),
  });
}
