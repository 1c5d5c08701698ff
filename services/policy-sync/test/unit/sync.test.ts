/** The serialised sync with small fakes of the user service, the file and OPA. */
import { createLogger } from '@pelita/kit';
import { Registry } from 'prom-client';
import type { DataFile, StoredDocument } from '../../src/sync/data-file';
import { revisionOf, type OpaClient } from '../../src/sync/opa-client';
import type { Source } from '../../src/sync/policy-data';
import type { RoleDataClient } from '../../src/sync/role-data-client';
import { createPolicySync } from '../../src/sync/sync';
import {
  CorruptDataFileError,
  OpaUnavailableError,
  UserServiceStatusError,
} from '../../src/sync/sync-errors';
import { createSyncMetrics } from '../../src/sync/sync-metrics';

/** The user service: answers what `data` holds when asked, or fails; `hold` blocks answers. */
class FakeUserService implements RoleDataClient {
  data: Record<Source, Record<string, unknown[]>> = {
    user_roles: { ann: ['r'] },
    role_grants: { r: [] },
  };
  failures = new Map<Source, Error>();
  fetches: Source[] = [];
  private held: Array<() => void> | undefined;

  hold() {
    this.held = [];
  }
  release() {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const go of waiting) go();
  }
  async fetch(source: Source) {
    this.fetches.push(source);
    // What the service holds when asked is what it answers, even if the answer is held back.
    const answer = this.data[source];
    const failure = this.failures.get(source);
    if (this.held) await new Promise<void>((resolve) => this.held?.push(resolve));
    if (failure) throw failure;
    return answer;
  }
}

class FakeFile implements DataFile {
  readonly path = '/fake/data.json';
  stored: StoredDocument | undefined;
  corrupt = false;
  async read() {
    if (this.corrupt) throw new CorruptDataFileError('corrupt');
    return Promise.resolve(this.stored);
  }
  async write(document: Record<string, unknown>) {
    this.corrupt = false;
    this.stored = { document, text: JSON.stringify(document) };
    return Promise.resolve(this.stored);
  }
}

class FakeOpa implements OpaClient {
  pushes: string[] = [];
  revision: string | undefined;
  down = false;
  async pushDocument(text: string) {
    if (this.down) throw new OpaUnavailableError('OPA unreachable');
    this.pushes.push(text);
    this.revision = revisionOf(text);
    return Promise.resolve();
  }
  async readRevision() {
    if (this.down) throw new OpaUnavailableError('OPA unreachable');
    return Promise.resolve(this.revision);
  }
  async checkHealth() {
    return Promise.resolve();
  }
}

function setUp() {
  const users = new FakeUserService();
  const file = new FakeFile();
  const opa = new FakeOpa();
  const registry = new Registry();
  const sync = createPolicySync({
    roleData: users,
    dataFile: file,
    opa,
    metrics: createSyncMetrics(registry),
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
  return { users, file, opa, sync, registry };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the sync', () => {
  it('merges the fetched mapping into the stored document by top-level key, and pushes it', async () => {
    const { users, file, opa, sync } = setUp();
    await file.write({ user_roles: { old: [] }, role_grants: { kept: [] }, other: 1 });
    users.data.user_roles = { ann: ['r'], bob: [] };

    const result = await sync.sync(['user_roles'], 'request');

    expect(users.fetches).toEqual(['user_roles']);
    expect(file.stored?.document).toEqual({
      user_roles: { ann: ['r'], bob: [] },
      role_grants: { kept: [] },
      other: 1,
    });
    expect(opa.pushes).toEqual([file.stored?.text]);
    expect(result).toEqual({
      revision: revisionOf(file.stored?.text ?? ''),
      counts: { user_roles: 2 },
    });
  });

  it('fetches both mappings when there is no file yet, or only a corrupt one', async () => {
    const { users, file, sync } = setUp();
    await sync.sync(['user_roles'], 'request');
    expect(users.fetches.sort()).toEqual(['role_grants', 'user_roles']);
    expect(Object.keys(file.stored?.document ?? {}).sort()).toEqual(['role_grants', 'user_roles']);

    users.fetches = [];
    file.corrupt = true;
    await sync.sync(['role_grants'], 'request');
    expect(users.fetches.sort()).toEqual(['role_grants', 'user_roles']);
  });

  it('runs one pass at a time, and calls that arrive meanwhile share the next pass', async () => {
    const { users, file, sync } = setUp();
    await file.write({});
    users.hold();
    const first = sync.sync(['user_roles'], 'request');
    await tick();
    users.data.user_roles = { late: [] };
    const later = Array.from({ length: 10 }, (_, i) =>
      sync.sync([i % 2 === 0 ? 'user_roles' : 'role_grants'], 'request'),
    );
    await tick();
    // The first pass is still fetching: nothing of the later calls has started.
    expect(users.fetches).toEqual(['user_roles']);
    users.release();
    await first;
    const results = await Promise.all(later);

    // Two passes in all: the first, and one for the ten that came while it ran.
    expect(users.fetches.sort()).toEqual(['role_grants', 'user_roles', 'user_roles']);
    // The later callers got data fetched after they called.
    expect(file.stored?.document.user_roles).toEqual({ late: [] });
    expect(new Set(results.map((r) => r.revision)).size).toBe(1);
  });

  it('gives each caller the outcome of its own mapping when a pass fetched several', async () => {
    const { users, file, sync } = setUp();
    await file.write({});
    users.hold();
    const blocker = sync.sync(['user_roles'], 'request');
    await tick();
    users.failures.set('user_roles', new UserServiceStatusError(503, '/open-api/role-users'));
    // Both join the next pass, which fetches the two mappings together.
    const roles = sync.sync(['user_roles'], 'request').catch((err: unknown) => err);
    const grants = sync.sync(['role_grants'], 'peer');
    users.release();
    await blocker;

    expect(await roles).toBeInstanceOf(UserServiceStatusError);
    expect(await grants).toMatchObject({ counts: { role_grants: 1 } });
    expect(users.fetches.sort()).toEqual(['role_grants', 'user_roles', 'user_roles']);
    expect(file.stored?.document.role_grants).toEqual(users.data.role_grants);
  });

  it('fails every caller of a pass whose OPA push failed, after the file was written', async () => {
    const { users, file, opa, sync, registry } = setUp();
    await file.write({});
    opa.down = true;
    users.data.user_roles = { new: [] };
    await expect(sync.sync(['user_roles'], 'request')).rejects.toBeInstanceOf(OpaUnavailableError);
    expect(file.stored?.document.user_roles).toEqual({ new: [] });
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/policy_sync_syncs_total\{kind="user_roles",outcome="error"\} 1/);
    expect(metrics).toMatch(/policy_sync_opa_pushes_total\{reason="sync",outcome="error"\} 1/);
  });

  it('verifies OPA against the file: pushes the file again only when OPA lost it', async () => {
    const { file, opa, sync } = setUp();
    expect(await sync.verify('opa_watch')).toEqual({ revision: undefined, restored: false });
    expect(opa.pushes).toEqual([]);

    await sync.sync(['user_roles', 'role_grants'], 'startup');
    const revision = revisionOf(file.stored?.text ?? '');
    expect(await sync.verify('opa_watch')).toEqual({ revision, restored: false });
    expect(opa.pushes).toHaveLength(1);

    opa.revision = undefined; // restarted
    expect(await sync.verify('opa_watch')).toEqual({ revision, restored: true });
    expect(opa.pushes).toHaveLength(2);
    expect(opa.revision).toBe(revision);
  });

  it('rejects a verification while OPA is down, and settles idle() once passes are done', async () => {
    const { file, opa, sync } = setUp();
    await file.write({ user_roles: {} });
    opa.down = true;
    await expect(sync.verify('opa_watch')).rejects.toBeInstanceOf(OpaUnavailableError);
    await sync.idle();
  });
});
