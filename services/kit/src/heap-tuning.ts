/**
 * V8 settings for a request-serving process, applied by `./instrument` before anything else runs.
 *
 * Allocation-site pretenuring is off. V8 allocates straight into the old generation the objects
 * of any allocation site whose objects mostly survived a young-generation collection. In a server
 * that survival comes from requests still in flight (50 concurrent calls on a young generation
 * still small at start, or a few long streamed answers), not from long-lived objects; once a site
 * is pretenured it stays so, and from then on every request's objects are born old, die old, and
 * are found only by full collections. In the http-proxy benchmark two runs in three fell into
 * that state: 9-10 ms scavenges instead of 1 ms, 116-122 µs of CPU per request instead of 83-93
 * (issue 17; the kit's README, "The garbage collector"). The flag is read at collection time, so
 * setting it here, as the process starts, takes effect for the whole run.
 */
import { setFlagsFromString } from 'node:v8';

export function tuneHeapForRequests(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
