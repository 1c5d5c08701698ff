// Library for integration tests, benchmarks and `make dev`: the connection settings of the servers
// `make testenv` started, and helpers to start and await processes of their own. A missing setting
// is an error naming the server; tests must fail clearly, never skip silently. The installer CLI
// (src/cli/) is not part of it.

export { requireEnv } from './lib/require-env';
export { serverForKey } from './lib/server-keys';
export { applyMissing, formatEnv, parseEnv, readEnvFile, writeEnvFile } from './lib/env-file';
export { currentSettings, envFilePath, resolveSettings, type Settings } from './lib/settings';

export { waitFor, type WaitOptions } from './lib/wait-for';
export { freePort } from './lib/free-port';
export { stopChild } from './lib/stop-child';
export { startTcpLink, type TcpLink } from './lib/tcp-link';
export { launchChromium, screenshot, seriousViolations, type AxeViolation } from './lib/browser';

export { startOpa, POLICIES_DIR, type OpaProcess, type DecisionInput } from './lib/opa-process';
export { startKubeApiserver, type KubeApiserverProcess } from './lib/kube-apiserver-process';
export { kubectl, kubectlApply, type KubectlResult } from './lib/kubectl';
