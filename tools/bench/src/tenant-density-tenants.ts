/**
 * The tenants of the tenant-density benchmark: real PlatformInstalls pointing at the test
 * servers, and each service's settings as the operator renders them for a tenant
 * (`renderDesired`: the workload's container env and the ConfigMap it loads), with the Secrets
 * it refers to resolved to the values the bench holds.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { KubernetesObject, V1Container, V1EnvVar } from '@kubernetes/client-node';
import {
  API_VERSION,
  KIND,
  childName,
  parseSpec,
  renderDesired,
  type PlatformInstallSpecInput,
  type PolicyFiles,
  type ServiceName,
} from '@pelita/operator';
import { requireEnv } from '@pelita/testenv';

/** One bucket for every tenant of every run: S3 is not what is measured (left empty). */
const BUCKET = 'bench-tenant-density';
const INSTALL_NAME = 'tenant';

export type Install = KubernetesObject & { spec: PlatformInstallSpecInput };

export interface Tenant {
  index: number;
  namespace: string;
  install: Install;
  /** Its PostgreSQL database (the install is given a URL, as a platform team would). */
  database: string;
  /** The platform Secret's values (the operator generates the same keys for a real install). */
  platformKeys: Record<string, string>;
}

export interface TenantFactory {
  /** `td-<run>`: every namespace, database, index and Redis key of the run starts with it. */
  prefix: string;
  /** What every database name of the run starts with. */
  databasePrefix: string;
  tenant(index: number): Tenant;
  /** A service's settings for the tenant, as its pod would see them. */
  settingsOf(tenant: Tenant, service: ServiceName): Record<string, string>;
}

export function tenantFactory(run: string, llmUrl: string, policies: PolicyFiles): TenantFactory {
  const deps = requireEnv(
    'POSTGRES_URL',
    'REDIS_URL',
    'OPENSEARCH_URL',
    'S3_ENDPOINT',
    'S3_ACCESS_KEY',
    'S3_SECRET_KEY',
    'S3_REGION',
  );
  const postgres = new URL(deps.POSTGRES_URL);
  const prefix = `td-${run}`;
  const databasePrefix = `td_${run}_`;
  // What the tenants' dependency Secrets hold, by Secret name and key.
  const dependencySecrets: Record<string, Record<string, string>> = {
    postgres: {
      username: decodeURIComponent(postgres.username),
      password: decodeURIComponent(postgres.password),
    },
    s3: { 'access-key': deps.S3_ACCESS_KEY, 'secret-key': deps.S3_SECRET_KEY },
    // Asked only at logins, which the bench does not make.
    license: { username: 'bench', password: 'bench' },
  };
  const ref = (name: string, key: string) => ({ name, key });

  // Index -1 is the template database's tenant.
  const tenant = (index: number): Tenant => {
    const label = index < 0 ? 'template' : String(index);
    const namespace = `${prefix}-${label}`;
    const database = `${databasePrefix}${label}`;
    const install: Install = {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: INSTALL_NAME, namespace },
      spec: {
        tenant: { id: namespace, displayName: `Tenant ${index}` },
        license: {
          clientId: 'client-1',
          apiUrl: 'http://127.0.0.1:9',
          credentialsSecretRef: { name: 'license' },
        },
        version: '1.0.0',
        dependencies: {
          postgres: {
            url: `postgres://${postgres.host}/${database}`,
            usernameSecretRef: ref('postgres', 'username'),
            passwordSecretRef: ref('postgres', 'password'),
          },
          redis: { url: deps.REDIS_URL },
          opensearch: { url: deps.OPENSEARCH_URL },
          s3: {
            url: deps.S3_ENDPOINT,
            bucket: BUCKET,
            region: deps.S3_REGION,
            accessKeySecretRef: ref('s3', 'access-key'),
            secretKeySecretRef: ref('s3', 'secret-key'),
          },
          llm: { url: llmUrl, model: 'pelita-stub' },
        },
      },
    };
    return { index, namespace, install, database, platformKeys: platformKeys() };
  };

  const settingsOf = (tenant: Tenant, service: ServiceName): Record<string, string> => {
    const objects = renderDesired({
      install: {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name: INSTALL_NAME, namespace: tenant.namespace, uid: tenant.namespace },
        spec: parseSpec(tenant.install.spec),
        platformKeys: { jwtPublicKey: tenant.platformKeys['jwt-public-key'] ?? '' },
      },
      policies,
    });
    const name = `${INSTALL_NAME}-${service}`;
    const workload = objects.find(
      (o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.metadata?.name === name,
    ) as
      | (KubernetesObject & { spec: { template: { spec: { containers: V1Container[] } } } })
      | undefined;
    if (!workload) throw new Error(`${service} is not rendered for ${tenant.namespace}`);
    const container = workload.spec.template.spec.containers[0]!;
    const env: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      const configMap: (KubernetesObject & { data?: Record<string, string> }) | undefined =
        objects.find(
          (o) => o.kind === 'ConfigMap' && o.metadata?.name === source.configMapRef?.name,
        );
      Object.assign(env, configMap?.data ?? {});
    }
    const secret = (name: string, key: string): string => {
      const values =
        name === `${INSTALL_NAME}-platform` ? tenant.platformKeys : dependencySecrets[name];
      const value = values?.[key];
      if (value === undefined) throw new Error(`no value for Secret ${name} key ${key}`);
      return value;
    };
    for (const variable of container.env ?? []) env[variable.name] = valueOf(variable, env, secret);
    return env;
  };

  return { prefix, databasePrefix, tenant, settingsOf };
}

/** An env entry's value as the kubelet makes it: a Secret key, or a value with `$(VAR)` expanded. */
function valueOf(
  variable: V1EnvVar,
  env: Record<string, string>,
  secret: (name: string, key: string) => string,
): string {
  const ref = variable.valueFrom?.secretKeyRef;
  if (ref) return secret(ref.name ?? '', ref.key);
  return (variable.value ?? '').replace(
    /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
    (whole, name: string) => env[name] ?? whole,
  );
}

/** The keys the operator puts in a new platform Secret (its README's table), freshly generated. */
function platformKeys(): Record<string, string> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const token = () => randomBytes(32).toString('hex');
  return {
    'jwt-private-key': privateKey,
    'jwt-public-key': publicKey,
    'encryption-key': randomBytes(32).toString('base64'),
    'opa-token': token(),
    'user-service-token': token(),
    'policy-sync-token': token(),
    'core-backend-token': token(),
    'http-proxy-token': token(),
    'db-proxy-token': token(),
  };
}

/** `childName` of the install, for the bench's cluster objects (the ocr-worker's volume claim). */
export function installChildName(tenant: Tenant, service: string): string {
  return childName(
    {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: INSTALL_NAME, namespace: tenant.namespace, uid: '' },
      spec: parseSpec(tenant.install.spec),
    },
    service,
  );
}
