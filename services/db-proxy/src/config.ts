/** The service's settings (environment variables), validated at start-up. */
import {
  baseSettings,
  booleanSetting,
  commaList,
  errorMessage,
  optionalSetting,
  positiveInt,
} from '@pelita/kit';
import { z } from 'zod';
import { parseHostAllowlist } from './connection/host-allowlist';

export const settingsSchema = baseSettings
  .extend({
    /** Seed: "15-second connect time-out". */
    CONNECT_TIMEOUT_MS: positiveInt(15_000),
    STATEMENT_TIMEOUT_MS: positiveInt(30_000),
    /** Rows returned by one statement at most; the answer says `truncated: true` beyond. */
    MAX_ROWS: positiveInt(10_000),
    /** Every `/execute` runs read-only; a request may tighten (x-db-read-only) but never loosen it. */
    READ_ONLY: booleanSetting.default(false),
    /** Comma-separated CIDRs, addresses and host names; empty: no host, unless ALLOW_ANY_DB_HOST. */
    ALLOWED_DB_HOSTS: commaList.transform((entries, ctx) => {
      try {
        return parseHostAllowlist(entries);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: errorMessage(err) });
        return z.NEVER;
      }
    }),
    /** With an empty ALLOWED_DB_HOSTS, lets callers reach any host (the seed's open proxy). */
    ALLOW_ANY_DB_HOST: booleanSetting.default(false),
    POOL_MAX_PER_TARGET: positiveInt(5),
    POOL_MAX_TARGETS: positiveInt(50),
    POOL_IDLE_MS: positiveInt(30_000),
    /**
     * `when-changed`: a pooled connection skips its reset after a request that provably changed
     * nothing in the session; `always`: every request is followed by a full reset (for databases
     * whose views or policies run code with session effects, which a statement's text cannot show).
     */
    SESSION_RESET: z.enum(['when-changed', 'always']).default('when-changed'),
    /**
     * When set, callers must send `Authorization: Bearer <token>` (as to http-proxy): without it
     * any pod that reaches the port can use the proxy's network position against any database.
     */
    PROXY_SERVICE_TOKEN: optionalSetting,
  })
  .superRefine((settings, ctx) => {
    if (settings.ALLOW_ANY_DB_HOST && settings.ALLOWED_DB_HOSTS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ALLOW_ANY_DB_HOST'],
        message: 'contradicts ALLOWED_DB_HOSTS: list the hosts or allow any, not both',
      });
    }
  });

export type Settings = z.infer<typeof settingsSchema>;
