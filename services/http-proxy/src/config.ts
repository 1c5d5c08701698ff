/** Settings of the HTTP proxy (the kit's base settings plus the outbound limits and the allowlist). */
import {
  allowedTargetsSetting,
  baseSettings,
  MIB,
  optionalSetting,
  positiveInt,
} from '@pelita/kit';
import { z } from 'zod';

export const settingsSchema = baseSettings.extend({
  /** CIDR ranges, addresses and host names reachable although not public (`127.0.0.0/8,api.internal`). */
  ALLOWED_TARGETS: allowedTargetsSetting,
  /** Deadline of one whole forwarded call: JWT login, redirects and the full answer. */
  OUTBOUND_TIMEOUT_MS: positiveInt(30_000),
  /** Largest target answer passed through; larger ones are a 502. */
  MAX_RESPONSE_BYTES: positiveInt(10 * MIB),
  /** Redirects followed per call; 0 passes redirects back to the caller unfollowed. */
  MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  /** When set, callers must send `Authorization: Bearer <token>`; empty means unset. */
  PROXY_SERVICE_TOKEN: optionalSetting,
});

export type Settings = z.output<typeof settingsSchema>;
