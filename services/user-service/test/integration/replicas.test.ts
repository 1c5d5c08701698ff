/**
 * Two policy-sync replicas, each with its own OPA sidecar and shared volume, behind one user
 * service: a change made through the API triggers one replica, and both OPAs converge (the
 * trigger reaches the other replica over Redis).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { requireEnv, waitFor } from '@pelita/testenv';
import {
  createPolicySyncService,
  settingsSchema as policySyncSettings,
  type PolicySyncService,
} from '@pelita/policy-sync';
import { startOpa, type OpaProcess } from './support/opa';
import { ADMIN, startPlatform, type Platform } from './support/platform';

describe('two policy-sync replicas behind the user service', () => {
  let platform: Platform;
  let shareDir: string;
  let secondOpa: OpaProcess;
  let second: PolicySyncService;
  let secondServer: RunningServer;

  const allows = async (opaUrl: string, user: string, path: string) => {
    const res = await fetch(`${opaUrl}/v1/data/pelita/authz/allow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: { user, method: 'GET', path } }),
    });
    return ((await res.json()) as { result?: unknown }).result === true;
  };

  beforeAll(async () => {
    const { REDIS_URL } = requireEnv('REDIS_URL');
    platform = await startPlatform();
    shareDir = mkdtempSync(join(tmpdir(), 'user-service-replica-'));
    secondOpa = await startOpa({ dataDir: shareDir });
    const logger = createLogger({ name: 'policy-sync-2', level: 'silent' });
    second = createPolicySyncService(
      loadConfig(policySyncSettings, {
        URL_USER: platform.url,
        URL_OPA: secondOpa.url,
        POLICY_DATA_FILE: join(shareDir, 'data.json'),
        REDIS_URL,
        SYNC_CHANNEL: platform.syncChannel,
        RESYNC_INTERVAL_MS: '0',
        OPA_PROBE_INTERVAL_MS: '0',
      }),
      logger,
    );
    secondServer = await serveInProcess(second, logger);
  });
  afterAll(async () => {
    await secondServer?.stop();
    await secondOpa?.stop();
    if (shareDir) rmSync(shareDir, { recursive: true, force: true });
    await platform?.stop();
  });

  it('converges both OPAs after a grant made through the API', async () => {
    await waitFor(() => allows(secondOpa.url, ADMIN.username, '/users'), 'replica 2 initial sync');
    const admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
    const post = async (path: string, body: unknown) => {
      const res = await platform.request('POST', path, { token: admin, body });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number; name: string };
    };
    const role = await post('/roles', { name: 'replica-role', level: 40 });
    await post('/users', {
      email: 'replica-member@pelita.test',
      username: 'replicamember',
      full_name: 'Replica Member',
      password: 'replica-member-pw-1',
      role_id: role.id,
    });
    const feature = await post('/features', { name: 'replica-feature', label: 'Replica' });
    const sub = await post(`/features/${feature.id}/sub-features`, {
      name: 'reports',
      label: 'Reports',
      method: 'get',
      path: '/reports/*',
    });
    await post('/policies', { role_id: role.id, sub_feature_id: sub.id });

    // The user service triggered only the platform's replica; the other hears it over Redis.
    await waitFor(() => allows(platform.opa.url, 'replicamember', '/reports/7'), 'replica 1');
    await waitFor(() => allows(secondOpa.url, 'replicamember', '/reports/7'), 'replica 2');
    expect(await allows(secondOpa.url, 'replicamember', '/reports/7/raw')).toBe(false);
  });
});
