/**
 * The access lists over a recording repository: what a member, a `knowledge.all` member and an
 * app key's narrowed principal may see, and the checks of a list's replacement before any write.
 */
import { createAccessLists } from '../../src/access/access-lists';
import {
  visibleSql,
  type AccessRepository,
  type Visibility,
} from '../../src/access/access-repository';
import type { Membership } from '../../src/workspaces/workspaces';
import { refused, WORKSPACE } from './access-fakes';

const [A, B, C] = ['a', 'b', 'c'].map((x) => `00000000-0000-4000-8000-00000000000${x}`) as [
  string,
  string,
  string,
];

function setup(listed: string[] = [A, B], members: string[] = ['vera', 'eddie']) {
  const calls: string[] = [];
  const seen: Visibility[] = [];
  const record = (name: string, visibility?: Visibility) => {
    calls.push(name);
    if (visibility) seen.push(visibility);
  };
  const repository = {
    grant: (v: Visibility) => Promise.resolve(record('grant', v)),
    isVisible: (v: Visibility, id: string) => {
      record('isVisible', v);
      return Promise.resolve(v.all || listed.includes(id));
    },
    listedIds: (v: Visibility) => {
      record('listedIds', v);
      return Promise.resolve(listed);
    },
    page: (v: Visibility) => {
      record('page', v);
      return Promise.resolve({ rows: [], total: 0 });
    },
    insertGranted: (v: Visibility) => Promise.resolve(record('insertGranted', v)),
    users: () => {
      record('users');
      return Promise.resolve(members);
    },
    membersAmong: (_w: string, ids: string[]) => {
      record('membersAmong');
      return Promise.resolve(new Set(ids.filter((id) => members.includes(id))));
    },
    replace: () => Promise.resolve(record('replace')),
    forget: () => Promise.resolve(record('forget')),
  } satisfies AccessRepository;
  return { access: createAccessLists(repository), calls, seen };
}

const member = (permissions: Membership['permissions'], scope?: Membership['scope']) =>
  ({
    workspaceId: WORKSPACE,
    userId: 'vera',
    role: 'r',
    permissions,
    ...(scope ? { scope } : {}),
  }) satisfies Membership;
const reader = member(['knowledge.read']);
const writer = member(['knowledge.read', 'knowledge.write']);
const everything = member(['knowledge.read', 'knowledge.all']);
const keyed = (documents: string[]) =>
  member(['knowledge.read', 'knowledge.all'], { keyId: 'k', document: documents, audio: [] });

describe('access lists', () => {
  it('answers what is listed for a member, everything for knowledge.all', async () => {
    const { access, calls } = setup();
    expect(await access.visible(reader, 'document')).toEqual([A, B]);
    expect(await access.visible(everything, 'document')).toBe('all');
    expect(calls).toEqual(['listedIds']);
  });

  it("narrows an app key's principal to its scope, and to nothing of other types", async () => {
    const { access, calls } = setup();
    expect(await access.visible(keyed([B, C]), 'document')).toEqual([B, C]);
    expect(await access.visible(keyed([B, C]), 'topic')).toEqual([]);
    expect(await access.canUse(keyed([B]), 'document', A)).toBe(false);
    expect(calls).toEqual([]);
  });

  it('hands listings the scope and whether everything is seen', async () => {
    const { access, seen } = setup();
    const listing = { alias: 'd', orderBy: 'd.id' };
    await access.page(keyed([C]), 'document', listing, { page: 1, limit: 5 });
    await access.page(reader, 'topic', listing, { page: 1, limit: 5 });
    expect(seen).toEqual([
      { workspaceId: WORKSPACE, userId: 'vera', type: 'document', all: true, scope: [C] },
      { workspaceId: WORKSPACE, userId: 'vera', type: 'topic', all: false },
    ]);
  });

  it('answers 404 for a resource not on the list', async () => {
    const { access } = setup();
    await expect(access.requireVisible(reader, 'folder', C)).rejects.toEqual(refused(404));
    await expect(access.requireVisible(reader, 'folder', A)).resolves.toBeUndefined();
  });

  it('refuses to replace a list without knowledge.write before reading anything', async () => {
    const { access, calls } = setup();
    await expect(access.replace(reader, 'document', A, ['vera'])).rejects.toEqual(refused(403));
    expect(calls).toEqual([]);
  });

  it('refuses strangers on a list (400) and replaces it with members only', async () => {
    const { access, calls } = setup();
    await expect(access.replace(writer, 'document', A, ['vera', 'mallory'])).rejects.toEqual(
      refused(400),
    );
    expect(calls).not.toContain('replace');
    await access.replace(writer, 'document', A, ['vera', 'vera', 'eddie']);
    expect(calls.slice(-2)).toEqual(['replace', 'users']);
  });
});

describe('the visibility filter', () => {
  const base = { workspaceId: WORKSPACE, userId: 'vera', type: 'document' as const };

  it('asks the list for a member, by position after the values already there', () => {
    const values: unknown[] = [WORKSPACE];
    const sql = visibleSql({ ...base, all: false }, 'd', values);
    expect(values).toEqual([WORKSPACE, 'document', 'vera']);
    expect(sql).toContain('listed.resource_type = $2');
    expect(sql).toContain('listed.user_id = $3');
  });

  it('keeps the scope even for knowledge.all, and nothing else', () => {
    const values: unknown[] = [];
    expect(visibleSql({ ...base, all: true, scope: [A] }, 'd', values)).toBe(
      'd.id = any($1::uuid[])',
    );
    expect(values).toEqual([[A]]);
  });
});
