/** A row a lookup or a write found, or the 404 that names what was not there. */
import { notFound } from '@pelita/kit';

export function found<T>(row: T | undefined, what: string): T {
  if (!row) throw notFound(`${what} not found`);
  return row;
}
