/**
 * The test environment's kubectl (`KUBECTL_BIN`) against a kubeconfig, for tests, benchmarks and
 * `make dev`. CRDs are applied with it, never with client-node: client-node's typed serializer
 * knows JSONSchemaProps' `default` and `enum` as `_default`/`_enum` and silently drops the real
 * keys, so a CRD applied through it loses its defaults and enums.
 */
import { spawnSync } from 'node:child_process';
import { requireEnv } from './require-env';

export interface KubectlResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfigPath: string, args: string[], input?: string): KubectlResult {
  const { KUBECTL_BIN } = requireEnv('KUBECTL_BIN');
  const result = spawnSync(KUBECTL_BIN, ['--kubeconfig', kubeconfigPath, ...args], {
    input,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Server-side apply (forcing conflicts) of YAML text or objects; throws with kubectl's error. */
export function kubectlApply(
  kubeconfigPath: string,
  manifests: string | object[],
  fieldManager = 'pelita-test',
): void {
  const input =
    typeof manifests === 'string' ? manifests : manifests.map((m) => JSON.stringify(m)).join('\n');
  const args = ['apply', '--server-side', '--force-conflicts', `--field-manager=${fieldManager}`];
  const result = kubectl(kubeconfigPath, [...args, '-f', '-'], input);
  if (result.status !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
}
