/**
 * Runs the helm binary of the test environment (`HELM_BIN`, written by `make testenv`) against
 * charts/pelita-operator, and parses what it renders. Shared by the chart's integration tests
 * (and meant for the server-side dry run against the test apiserver).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { requireEnv } from '@pelita/testenv';
import { parseAllDocuments } from 'yaml';

export const CHART_DIR = path.resolve(__dirname, '../pelita-operator');
/** Every toggle on, watchNamespace set. */
export const FULL_VALUES = path.join(CHART_DIR, 'ci/full-values.yaml');
/** Kubernetes version the templates are rendered for (the test apiserver's minor). */
export const KUBE_VERSION = '1.34.0';
export const RELEASE_NAME = 'pelita-operator';
export const RELEASE_NAMESPACE = 'pelita-system';

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A rendered object: apiVersion, kind and metadata.name are always present. */
export interface Manifest extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: NonNullable<KubernetesObject['metadata']> & { name: string };
  [field: string]: unknown;
}

let helmHome: string | undefined;

/** Runs helm with `args`; resolves with its exit code and output, never rejects on failure. */
export function helm(args: string[]): Promise<HelmResult> {
  const { HELM_BIN } = requireEnv('HELM_BIN');
  // Keep helm's config, cache and data out of the user's home.
  helmHome ??= mkdtempSync(path.join(tmpdir(), 'pelita-helm-'));
  const env = {
    ...process.env,
    HELM_CONFIG_HOME: path.join(helmHome, 'config'),
    HELM_CACHE_HOME: path.join(helmHome, 'cache'),
    HELM_DATA_HOME: path.join(helmHome, 'data'),
  };
  return new Promise((resolve, reject) => {
    execFile(HELM_BIN, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(new Error(`cannot run ${HELM_BIN}: ${error.message}`));
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

export interface RenderOptions {
  /** Values files (`-f`), e.g. FULL_VALUES. */
  valuesFiles?: string[];
  /** `--set key=value` entries. */
  set?: string[];
  releaseName?: string;
  namespace?: string;
}

/** The `helm template` arguments for `options`. */
export function templateArgs(options: RenderOptions = {}): string[] {
  return [
    'template',
    options.releaseName ?? RELEASE_NAME,
    CHART_DIR,
    '--namespace',
    options.namespace ?? RELEASE_NAMESPACE,
    '--kube-version',
    KUBE_VERSION,
    ...(options.valuesFiles ?? []).flatMap((file) => ['--values', file]),
    ...(options.set ?? []).flatMap((entry) => ['--set', entry]),
  ];
}

/** Renders the chart with `helm template` and returns every object it produces, parsed. */
export async function renderChart(options: RenderOptions = {}): Promise<Manifest[]> {
  const result = await helm(templateArgs(options));
  if (result.code !== 0) {
    throw new Error(`helm template failed (exit ${result.code}): ${result.stderr}`);
  }
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(result.stdout)) {
    if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${doc.errors[0]}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue; // empty document
    const object = value as Partial<Manifest>;
    if (!object.apiVersion || !object.kind || !object.metadata?.name) {
      throw new Error(`rendered object without apiVersion, kind or name: ${JSON.stringify(value)}`);
    }
    manifests.push(object as Manifest);
  }
  return manifests;
}

/** The one object of `kind` named `name` (any name when omitted); throws unless exactly one. */
export function findOne(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.filter(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
  if (found.length !== 1) {
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  }
  return found[0]!;
}
