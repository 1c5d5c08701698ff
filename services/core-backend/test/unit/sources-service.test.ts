/**
 * The databases and APIs services with small fakes of their repositories: a new source is created
 * through `access.createGranted` (its creator on its list), a page through `access.page`, a
 * deleted one forgets its list, a taken name is 409, and stored secrets stay unless replaced.
 */
import type pg from 'pg';
import type { AccessLists } from '../../src/access/access-lists';
import type { SecretBox } from '../../src/crypto/secret-box';
import type { ApiRepository } from '../../src/sources/api-repository';
import { createApis } from '../../src/sources/apis';
import { createDatabaseRepository } from '../../src/sources/database-repository';
import type { DatabaseRepository } from '../../src/sources/database-repository';
import { createDatabases } from '../../src/sources/databases';
import type { MemberCheck } from '../../src/workspaces/actor';
import { refused, WORKSPACE } from './access-fakes';

const editor = { userId: 'editor', workspaceId: WORKSPACE };
const workspaces: MemberCheck = {
  access: (workspaceId, userId) =>
    Promise.resolve({
      workspaceId,
      userId,
      role: 'editor',
      permissions: ['knowledge.read', 'knowledge.write'],
    }),
};
const box: SecretBox = { seal: (text: string) => `sealed(${text})`, open: (s: string) => s };

/** A table in memory, and the access lists' calls. */
function fakes() {
  const rows = new Map<string, Record<string, unknown>>();
  const calls: string[] = [];
  const table = {
    row: (_member: unknown, id: string) => Promise.resolve(rows.get(id)),
    insert: (_client: unknown, id: string, creator: { userId: string }, given: object) => {
      if ([...rows.values()].some((row) => row.name === (given as { name: string }).name)) {
        return Promise.reject(Object.assign(new Error('duplicate'), { code: '23505' }));
      }
      rows.set(id, { id, created_by: creator.userId, ...given });
      return Promise.resolve();
    },
    update: (id: string, _workspaceId: string, given: object) => {
      rows.set(id, { ...rows.get(id), ...given });
      return Promise.resolve();
    },
    delete: (id: string) => {
      rows.delete(id);
      return Promise.resolve();
    },
  };
  const access = {
    requireVisible: (_m: unknown, type: string, id: string) => {
      calls.push(`requireVisible ${type}`);
      return rows.has(id) ? Promise.resolve() : Promise.reject(refused(404));
    },
    page: (_m: unknown, type: string) => {
      calls.push(`page ${type}`);
      return Promise.resolve({ rows: [...rows.values()], total: rows.size });
    },
    createGranted: async (
      _m: unknown,
      type: string,
      _id: string,
      insert: (c: unknown) => unknown,
    ) => {
      calls.push(`createGranted ${type}`);
      await insert({});
    },
    forget: (type: string) => {
      calls.push(`forget ${type}`);
      return Promise.resolve();
    },
  } as unknown as AccessLists;
  return { rows, calls, table, access };
}

const database = {
  name: 'shop',
  description: '',
  engine: 'postgresql' as const,
  host: 'db.test',
  port: 5432,
  database_name: 'shop',
  username: 'reader',
};

describe('databases service', () => {
  const setup = () => {
    const f = fakes();
    const databases = createDatabases({
      repository: f.table as unknown as DatabaseRepository,
      access: f.access,
      workspaces,
      box,
      dbProxy: undefined,
    });
    return { ...f, databases };
  };

  it('creates through createGranted with the password sealed, and lists through access.page', async () => {
    const { databases, calls } = setup();
    const created = await databases.create(editor, { ...database, password: 'pw' });
    expect(created).toMatchObject({
      name: 'shop',
      password_sealed: 'sealed(pw)',
      created_by: 'editor',
    });
    expect((await databases.list(editor, { page: 1, limit: 10 })).total).toBe(1);
    expect(calls).toEqual(['createGranted database', 'requireVisible database', 'page database']);
  });

  it('keeps the stored password when a change leaves it out, removes it on null', async () => {
    const { databases } = setup();
    const { id } = await databases.create(editor, { ...database, password: 'pw' });
    await expect(databases.update(editor, id, { description: 'd' })).resolves.toMatchObject({
      description: 'd',
      password_sealed: 'sealed(pw)',
    });
    await expect(databases.update(editor, id, { password: null })).resolves.toMatchObject({
      password_sealed: null,
    });
  });

  it('answers a taken name 409 and forgets the list of a deleted database', async () => {
    const { databases, calls, rows } = setup();
    const { id } = await databases.create(editor, database);
    await expect(databases.create(editor, database)).rejects.toEqual(refused(409));
    await databases.remove(editor, id);
    expect(rows.size).toBe(0);
    expect(calls).toContain('forget database');
  });
});

describe('apis service', () => {
  it('creates an API through createGranted and keeps its secret while the auth type stays', async () => {
    const f = fakes();
    const repository = { ...f.table } as unknown as ApiRepository;
    const apis = createApis({
      repository,
      access: f.access,
      workspaces,
      box,
      httpProxy: undefined,
    });
    const input = {
      name: 'crm',
      description: '',
      base_url: 'https://crm.test',
      auth: { type: 'bearer' as const, token: 't' },
    };
    const { id } = await apis.create(editor, input);
    expect(f.calls).toEqual(['createGranted api', 'requireVisible api']);
    const changed = await apis.update(editor, id, { ...input, auth: { type: 'bearer' } });
    expect(changed).toMatchObject({ auth_type: 'bearer', auth_secret_sealed: 'sealed(t)' });
    await expect(
      apis.update(editor, id, { ...input, auth: { type: 'basic', user: 'u' } }),
    ).rejects.toEqual(refused(400));
  });
});

describe('source repository', () => {
  it("reads a row only in the member's workspace and through their access list", async () => {
    const asked: unknown[][] = [];
    const pool = {
      query: (sql: string, values: unknown[]) => {
        asked.push([sql.replace(/\s+/g, ' '), values]);
        return Promise.resolve({ rows: [] });
      },
    } as unknown as pg.Pool;
    const access = {
      visibleSql: (_member: unknown, type: string, alias: string, values: unknown[]) => {
        values.push(type);
        return `visible(${alias}, $${values.length})`;
      },
    };
    const member = { ...editor, role: 'editor', permissions: [] };
    await expect(createDatabaseRepository(pool, access).row(member, 'd1')).resolves.toBeUndefined();
    expect(asked).toEqual([
      [
        'select s.* from databases s where s.id = $1 and s.workspace_id = $2 and visible(s, $3)',
        ['d1', WORKSPACE, 'database'],
      ],
    ]);
  });
});
