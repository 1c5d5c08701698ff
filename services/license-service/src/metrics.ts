/** The service's own metrics, registered beside the kit's on the same registry. */
import { declareSeries } from '@pelita/kit';
import type { Counter, Registry } from 'prom-client';

export interface LicenseMetrics {
  /** License API answers by outcome: a validation code, or `unauthenticated` / `forbidden`. */
  licenseChecks: Counter<'outcome'>;
  /** Dashboard login steps (`password`, `second_factor`) by outcome (`ok`, `refused`). */
  logins: Counter<'step' | 'outcome'>;
  /** Login notifications by outcome (`sent`, `failed`). */
  notifications: Counter<'outcome'>;
  /** Pipelines of frontend mappings by outcome (`triggered`, `failed`). */
  pipelines: Counter<'outcome'>;
  /**
   * Password checks by how they ended: `hashed` (scrypt ran), `remembered` (a recent success, no
   * hash), `throttled` (the address's failures, no hash), `busy` (no hash slot in time).
   */
  passwordChecks: Counter<'outcome'>;
}

export function registerMetrics(registry: Registry): LicenseMetrics {
  return declareSeries(registry, {
    licenseChecks: {
      kind: 'counter',
      name: 'license_api_checks_total',
      help: 'License API answers by outcome (validation code, unauthenticated, forbidden)',
      labels: ['outcome'],
    },
    logins: {
      kind: 'counter',
      name: 'license_dashboard_logins_total',
      help: 'Dashboard login steps by step and outcome',
      labels: ['step', 'outcome'],
    },
    notifications: {
      kind: 'counter',
      name: 'license_login_notifications_total',
      help: 'Login notifications by outcome',
      labels: ['outcome'],
    },
    pipelines: {
      kind: 'counter',
      name: 'license_pipeline_triggers_total',
      help: 'Pipelines of frontend mappings by outcome',
      labels: ['outcome'],
    },
    passwordChecks: {
      kind: 'counter',
      name: 'license_password_checks_total',
      help: 'Password checks by outcome (hashed, remembered, throttled, busy)',
      labels: ['outcome'],
    },
  });
}
