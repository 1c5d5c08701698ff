/** A real OPA of the test's own (`OPA_BIN`), loaded with the repository's policies/ (without their tests). */
import { POLICIES_DIR, startOpa as startOpaProcess, type OpaProcess } from '@pelita/testenv';

export { freePort, type OpaProcess } from '@pelita/testenv';

export interface OpaOptions {
  /** Loaded at start like the sidecar loads the shared volume (`data.json` at the root of data). */
  dataDir?: string;
  port?: number;
}

export function startOpa(options: OpaOptions = {}): Promise<OpaProcess> {
  return startOpaProcess(
    [...(options.dataDir ? [options.dataDir] : []), POLICIES_DIR],
    options.port,
  );
}
