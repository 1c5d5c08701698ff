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

/** A toleration as the rules read it (the schema's output). */
export interface TolerationInput {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/**
 * The apiserver's own checks of a pod's toleration, made at admission of the PlatformInstall:
 * otherwise the install is accepted and every Deployment it renders is refused at apply time.
 */
export const TOLERATION_RULES: ReadonlyArray<CelRule & { holds(t: TolerationInput): boolean }> = [
  {
    rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: 'a toleration without a key needs operator Exists (it then tolerates every taint)',
    holds: (t) => (t.key ?? '') !== '' || t.operator === 'Exists',
  },
  {
    rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: 'a toleration with operator Exists takes no value',
    holds: (t) => t.operator !== 'Exists' || (t.value ?? '') === '',
  },
  {
    rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: 'tolerationSeconds needs effect NoExecute',
    holds: (t) => t.tolerationSeconds === undefined || t.effect === 'NoExecute',
  },
];

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
