// Library for integration tests: the connection settings of the servers `make testenv` started.
// A missing setting is an error naming the server; tests must fail clearly, never skip silently.

export { applyMissing, formatEnv, parseEnv, readEnvFile, writeEnvFile } from './env-file';
export {
  startOpa,
  freePort,
  POLICIES_DIR,
  type OpaProcess,
  type DecisionInput,
} from './opa-process';
export { startKubeApiserver, type KubeApiserverProcess } from './kube-apiserver-process';
export { kubectl, kubectlApply, type KubectlResult } from './kubectl';
export { waitFor } from './wait-for';
export { currentSettings, envFilePath, resolveSettings, type Settings } from './settings';
export { requireEnv, serverForKey } from './require-env';
