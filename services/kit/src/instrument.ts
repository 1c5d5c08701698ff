/**
 * Side-effect entry for a service's `main.ts`, imported first: tunes the heap for serving
 * requests (heap-tuning.ts) and starts tracing under the service's name (`OTEL_SERVICE_NAME`,
 * else the entry's package name without its scope).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tuneHeapForRequests } from './heap-tuning';
import { startTracing } from './tracing';

function entryPackageName(): string {
  let dir = dirname(require.main?.filename ?? process.argv[1] ?? process.cwd());
  for (;;) {
    try {
      const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
      };
      if (name) return name.replace(/^@[^/]+\//, '');
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) return 'pelita-service';
    dir = parent;
  }
}

tuneHeapForRequests();
startTracing(entryPackageName());
