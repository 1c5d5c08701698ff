/**
 * A failing dependency becomes a 503 that names it, instead of the kit's anonymous 500: the
 * caller learns it may try again, and what was down. The cause stays in the log only.
 */
import { HttpError } from '@pelita/kit';

const DEPENDENCIES = {
  redis: ['queue_unavailable', 'The task queue and status store (Redis) did not answer'],
  storage: ['storage_unavailable', 'Object storage (S3) did not store the upload'],
  search: ['search_unavailable', 'The search index (OpenSearch) did not answer'],
} as const;

export type Dependency = keyof typeof DEPENDENCIES;

export async function using<T>(dependency: Dependency, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    const [code, message] = DEPENDENCIES[dependency];
    throw new HttpError(503, code, `${message}; try again later`, { cause: err });
  }
}
