/** The service's own metrics, registered beside the kit's on the same registry. */
import { Counter, type Registry } from 'prom-client';

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
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    licenseChecks: counter(
      'license_api_checks_total',
      'License API answers by outcome (validation code, unauthenticated, forbidden)',
      ['outcome'],
    ),
    logins: counter('license_dashboard_logins_total', 'Dashboard login steps by step and outcome', [
      'step',
      'outcome',
    ]),
    notifications: counter('license_login_notifications_total', 'Login notifications by outcome', [
      'outcome',
    ]),
    pipelines: counter(
      'license_pipeline_triggers_total',
      'Pipelines of frontend mappings by outcome',
      ['outcome'],
    ),
    passwordChecks: counter(
      'license_password_checks_total',
      'Password checks by outcome (hashed, remembered, throttled, busy)',
      ['outcome'],
    ),
  };
}
