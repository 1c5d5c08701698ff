/** Fetches the role data from the user service (sync step 1). */
import { SOURCES, type Source } from './policy-data';
import { describeError, UserServiceStatusError, UserServiceUnavailableError } from './sync-errors';

const MAX_REASON_CHARS = 300;

export interface RoleDataClient {
  /** The value of the document key `source`; throws a sync error when the user service fails. */
  fetch(source: Source): Promise<Record<string, unknown[]>>;
}

export interface RoleDataClientOptions {
  /** `URL_USER`, without a trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
}

export function createRoleDataClient(options: RoleDataClientOptions): RoleDataClient {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;

  return {
    async fetch(source) {
      const { path, extract } = SOURCES[source];
      let res: Response;
      try {
        res = await fetch(`${options.baseUrl}${path}`, {
          headers,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        throw new UserServiceUnavailableError(
          `user service unreachable for ${path}: ${describeError(err)}`,
          err,
        );
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new UserServiceStatusError(res.status, path);
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw new UserServiceUnavailableError(
          `user service answer to ${path} broke off: ${describeError(err)}`,
          err,
        );
      }
      try {
        return extract(JSON.parse(text));
      } catch (err) {
        // A zod error lists every issue: the first few say enough.
        const reason = describeError(err).slice(0, MAX_REASON_CHARS);
        throw new UserServiceUnavailableError(
          `user service answered ${path} with a body outside the contract: ${reason}`,
          err,
        );
      }
    },
  };
}
