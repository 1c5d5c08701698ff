/** Settings of the policy sync: the kit's base settings plus the seed's names (`NODE_PORT`, `URL_USER`, `URL_OPA`). */
import { baseSettings, httpUrl, optionalPort, optionalSetting, positiveInt } from '@pelita/kit';
import { z } from 'zod';

const DEFAULT_PORT = 3666;

const milliseconds = z.coerce.number().int().min(0);

export const settingsSchema = baseSettings
  .extend({
    /** The seed's port setting; `PORT` is read when it is absent, 3666 when both are. */
    NODE_PORT: optionalPort,
    PORT: optionalPort,
    /** User service base URL: `GET {URL_USER}/open-api/role-users` and `/open-api/role-grants`. */
    URL_USER: httpUrl,
    /** OPA base URL (the sidecar): `PUT {URL_OPA}/v1/data`. */
    URL_OPA: httpUrl.default('http://127.0.0.1:8181'),
    /** The shared policy data document, on the volume the OPA sidecar loads at its start. */
    POLICY_DATA_FILE: z.string().min(1).default('/share/data.json'),
    /** Redis for the trigger fan-out between replicas; unset runs a single replica without it. */
    REDIS_URL: optionalSetting,
    /** Overrides a password in REDIS_URL: a Secret's value needs no URL encoding this way. */
    REDIS_PASSWORD: optionalSetting,
    /** Pub/sub channel of the triggers; distinct per installation sharing one Redis. */
    SYNC_CHANNEL: z.string().min(1).default('pelita:policy-sync:trigger'),
    /**
     * How long a caller's sync waits for the other replicas to confirm theirs (the answer's
     * `replicas`); keep it below the caller's time-out (the user service's 5 s).
     */
    PEER_CONFIRM_TIMEOUT_MS: milliseconds.default(3_000),
    /** Full resync of both mappings every so often (0 turns it off). */
    RESYNC_INTERVAL_MS: milliseconds.default(60_000),
    /** How often OPA is checked for still holding the pushed document (0 turns it off). */
    OPA_PROBE_INTERVAL_MS: milliseconds.default(5_000),
    USER_SERVICE_TIMEOUT_MS: positiveInt(10_000),
    OPA_TIMEOUT_MS: positiveInt(5_000),
    /**
     * When set, sent as `Authorization: Bearer <token>` on every call to OPA: an OPA run with
     * `--authentication=token --authorization=basic` lets only its holder write `data`.
     */
    OPA_TOKEN: optionalSetting,
    /** When set, callers of `/role-users` and `/role-grants` must send `Authorization: Bearer <token>`. */
    SYNC_SERVICE_TOKEN: optionalSetting,
    /** When set, sent as `Authorization: Bearer <token>` to the user service's open-api endpoints. */
    USER_SERVICE_TOKEN: optionalSetting,
  })
  .transform(({ NODE_PORT, PORT, ...rest }) => ({
    ...rest,
    PORT: NODE_PORT ?? PORT ?? DEFAULT_PORT,
  }));

export type Settings = z.output<typeof settingsSchema>;
