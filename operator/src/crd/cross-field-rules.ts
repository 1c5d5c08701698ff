/**
 * Cross-field rules of the PlatformInstall spec, each once: as CEL for the apiserver
 * (`x-kubernetes-validations`) and as a JavaScript check for zod (the operator parses stored
 * objects written before a rule existed). The service requirements come from the catalog.
 */
import { CATALOG, SERVICE_NAMES, type Dependency, type ServiceName } from '../service-catalog';

export const MAX_INSTALL_NAME_LENGTH = 40;

export interface CelRule {
  rule: string;
  message: string;
}

export const CROSS_FIELD_RULES = {
  root: {
    rule: `self.metadata.name.size() <= ${MAX_INSTALL_NAME_LENGTH}`,
    message: `metadata.name must be at most ${MAX_INSTALL_NAME_LENGTH} characters (child names append the service name)`,
  },
  ingress: {
    // `has(self.enabled)` first: the apiserver checks the rule against the default `{}` too.
    rule: '!has(self.enabled) || !self.enabled || has(self.host)',
    message: 'ingress.host is required when ingress.enabled is true',
  },
  // Labels (`pelita.io/tenant`) and the installs' data are keyed by it.
  tenantId: { rule: 'self == oldSelf', message: 'tenant.id is immutable' },
} as const satisfies Record<string, CelRule>;

/**
 * A StatefulSet's volume claim templates cannot change; while the workload exists its volume
 * settings stay as they are (disable the service, then change them and enable it again).
 * `volume` is tested with `has` first: the apiserver checks the rule against the entry's default
 * `{}` too, before the nested defaults fill it in (a built service reaches the comparison).
 */
export function workVolumeRule(service: ServiceName): CelRule {
  const on = (self: string) =>
    `(has(${self}.enabled) ? ${self}.enabled : ${CATALOG[service].built})`;
  const sameVolume =
    '(has(self.volume) ? has(oldSelf.volume) && self.volume == oldSelf.volume : !has(oldSelf.volume))';
  return {
    rule: `!(${on('oldSelf')} && ${on('self')}) || ${sameVolume}`,
    message: `services.${service}.volume cannot change while ${service} runs (disable it first)`,
  };
}

/** The parts of a spec the requirement checks read (zod's output, before transforms). */
export interface RequirementInput {
  services: Partial<Record<ServiceName, { enabled?: boolean }>>;
  dependencies: Partial<Record<Dependency, unknown>>;
}

export interface Requirement extends CelRule {
  /** Same meaning as `rule`, on a parsed spec. */
  holds(spec: RequirementInput): boolean;
}

/** CEL names a field with `-` as `__dash__`. */
const celField = (name: string) => name.replace(/-/g, '__dash__');

function celEnabled(service: ServiceName): string {
  const at = `self.services.${celField(service)}`;
  return `(has(self.services) && has(${at}) && has(${at}.enabled) ? ${at}.enabled : ${CATALOG[service].built})`;
}

function enabled(spec: RequirementInput, service: ServiceName): boolean {
  return spec.services[service]?.enabled ?? CATALOG[service].built;
}

/** One rule per service that needs dependencies, one per service it needs beside it. */
export function requirementRules(): Requirement[] {
  const rules: Requirement[] = [];
  for (const service of SERVICE_NAMES) {
    const { dependencies, services } = CATALOG[service].requires;
    const deps = dependencies.filter((d) => d !== 'license'); // spec.license is always required
    if (deps.length > 0) {
      rules.push({
        rule: `!${celEnabled(service)} || (has(self.dependencies) && ${deps.map((d) => `has(self.dependencies.${d})`).join(' && ')})`,
        message: `${service} needs ${deps.map((d) => `dependencies.${d}`).join(' and ')} (or services.${service}.enabled: false)`,
        holds: (spec) =>
          !enabled(spec, service) || deps.every((d) => spec.dependencies[d] !== undefined),
      });
    }
    for (const needed of services) {
      rules.push({
        rule: `!${celEnabled(service)} || ${celEnabled(needed)}`,
        message: `${service} needs ${needed}: enable both or neither`,
        holds: (spec) => !enabled(spec, service) || enabled(spec, needed),
      });
    }
  }
  return rules;
}
