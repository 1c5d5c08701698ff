/**
 * The operator's registry allowlist (ALLOWED_IMAGE_REGISTRIES) against the real apiserver: an
 * install naming another registry is refused with InvalidSpec and gets no child; an allowed one
 * is reconciled as usual.
 */
import { waitFor } from '@pelita/testenv';
import {
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  exists,
  installCrd,
  platformInstall,
  readInstall,
  apply,
  startOperator,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-allowlist');
  operator = await startOperator({
    kubeconfigPath: cluster.kubeconfigPath,
    namespace,
    env: { ALLOWED_IMAGE_REGISTRIES: 'registry.allowed.example/pelita, openpolicyagent' },
  });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
});

it('refuses an install whose images come from another registry, and applies nothing', async () => {
  await apply(
    cluster,
    platformInstall(namespace, 'elsewhere', { image: { registry: 'ghcr.io/someone' } }),
  );
  await waitFor(
    async () =>
      condition(await readInstall(cluster, namespace, 'elsewhere'), 'Ready')?.reason ===
      'InvalidSpec',
    { what: 'Ready=False InvalidSpec', timeoutMs: 20_000, intervalMs: 100 },
  );
  const ready = condition(await readInstall(cluster, namespace, 'elsewhere'), 'Ready');
  expect(ready?.status).toBe('False');
  expect(ready?.message).toContain('ghcr.io/someone/user-service:1.0.0');
  expect(await exists(cluster, configMap('elsewhere-user-service'))).toBe(false);
});

it('reconciles an install whose images are all allowed', async () => {
  await apply(
    cluster,
    platformInstall(namespace, 'allowed', {
      image: { registry: 'registry.allowed.example/pelita' },
    }),
  );
  await waitFor(() => exists(cluster, configMap('allowed-user-service')), {
    what: 'the allowed install ConfigMap',
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  const status = await readInstall(cluster, namespace, 'allowed');
  expect(condition(status, 'Ready')?.reason).not.toBe('InvalidSpec');
});
