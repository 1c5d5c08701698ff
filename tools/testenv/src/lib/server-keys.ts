/**
 * Which testenv server provides each env-file key, so that `requireEnv` can name the server to
 * look at without loading the installers. The CLI's server modules provide exactly these keys
 * (a unit test compares them with every server's `env()`).
 */
export const SERVER_KEYS = {
  postgres: ['POSTGRES_URL'],
  pgbouncer: ['PGBOUNCER_URL'],
  mariadb: ['MARIADB_URL'],
  redis: ['REDIS_URL'],
  opensearch: ['OPENSEARCH_URL'],
  minio: ['S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_REGION'],
  opa: ['OPA_URL', 'OPA_BIN'],
  prometheus: ['PROMETHEUS_URL', 'PROMETHEUS_TARGETS_DIR', 'PROMETHEUS_BIN', 'PROMTOOL_BIN'],
  kube: [
    'KUBECONFIG',
    'KUBE_APISERVER_URL',
    'KUBE_VERSION',
    'KUBE_APISERVER_BIN',
    'KUBECTL_BIN',
    'HELM_BIN',
    'KWOK_BIN',
    'ETCD_URL',
  ],
  node: [
    'REAL_NODE_NAME',
    'REAL_NODE_ADDRESS',
    'REAL_NODE_SELECTOR',
    'REAL_NODE_TAINT',
    'CONTAINERD_ADDRESS',
    'CRICTL_BIN',
  ],
  'network-policy': ['NETWORK_POLICY_AGENT'],
  smtp: ['SMTP_HOST', 'SMTP_PORT', 'SMTP_MAILDIR'],
  schemathesis: ['SCHEMATHESIS_BIN'],
  hadolint: ['HADOLINT_BIN'],
  actionlint: ['ACTIONLINT_BIN', 'SHELLCHECK_BIN'],
  'document-tools': ['SOFFICE_BIN', 'TESSERACT_BIN'],
  chromium: ['CHROMIUM_BIN'],
} as const satisfies Record<string, readonly string[]>;

export type ServerName = keyof typeof SERVER_KEYS;

/** The server whose keys include `key`, for error messages. */
export function serverForKey(key: string): ServerName | undefined {
  const names = Object.keys(SERVER_KEYS) as ServerName[];
  return names.find((name) => (SERVER_KEYS[name] as readonly string[]).includes(key));
}
