/** Settings of the operator process, from the environment (the chart sets every one of them). */
import { baseSettings, booleanSetting, commaList } from '@pelita/kit';
import { z } from 'zod';

const seconds = z.coerce.number().positive();

export const settingsSchema = baseSettings
  .extend({
    /** Serves `/metrics`, `/healthz`, `/readyz` (and the kit's `/health`, `/ready`). */
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** One namespace to watch; empty watches every namespace (needs the ClusterRole). */
    WATCH_NAMESPACE: z.string().default(''),
    LEADER_ELECTION: booleanSetting.default(true),
    /** Namespace of the Lease; defaults to the pod's own (`POD_NAMESPACE`). */
    LEADER_ELECTION_NAMESPACE: z.string().default(''),
    LEADER_ELECTION_LEASE_NAME: z.string().min(1).default('pelita-operator'),
    /** client-go's defaults: a standby takes over at most ~lease duration after a leader dies. */
    LEASE_DURATION_SECONDS: seconds.default(15),
    RENEW_DEADLINE_SECONDS: seconds.default(10),
    RETRY_PERIOD_SECONDS: seconds.default(2),
    /** Identity in the Lease; the pod name from the downward API. */
    POD_NAME: z.string().default(''),
    POD_NAMESPACE: z.string().default('default'),
    MAX_CONCURRENT_RECONCILES: z.coerce.number().int().min(1).max(64).default(4),
    /** Every install is reconciled again this often even without events (0 turns it off). */
    RESYNC_SECONDS: z.coerce.number().min(0).default(600),
    /** Rego files turned into each install's policies ConfigMap (`*_test.rego` left out). */
    POLICIES_DIR: z.string().min(1).default('/app/policies'),
    /**
     * Registries (or registry paths) images may come from, comma-separated; empty allows any.
     * An install naming another registry or OPA image is refused (InvalidSpec), nothing applied.
     */
    ALLOWED_IMAGE_REGISTRIES: commaList,
  })
  .refine((s) => s.RENEW_DEADLINE_SECONDS < s.LEASE_DURATION_SECONDS, {
    message: 'RENEW_DEADLINE_SECONDS must be less than LEASE_DURATION_SECONDS',
    path: ['RENEW_DEADLINE_SECONDS'],
  })
  .refine((s) => s.RETRY_PERIOD_SECONDS < s.RENEW_DEADLINE_SECONDS, {
    message: 'RETRY_PERIOD_SECONDS must be less than RENEW_DEADLINE_SECONDS',
    path: ['RETRY_PERIOD_SECONDS'],
  });

export type Settings = z.infer<typeof settingsSchema>;
