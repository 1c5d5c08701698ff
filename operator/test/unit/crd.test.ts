import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  CRD_FILE,
  README_FILE,
  buildCrd,
  renderCrdYaml,
  renderReadme,
  toStructural,
} from '../../src/crd/generate-crd';

function walk(node: any, at: string, visit: (node: any, at: string) => void): void {
  visit(node, at);
  for (const [name, child] of Object.entries(node.properties ?? {}))
    walk(child, `${at}.${name}`, visit);
  if (node.items) walk(node.items, `${at}[]`, visit);
  if (typeof node.additionalProperties === 'object')
    walk(node.additionalProperties, `${at}{}`, visit);
}

describe('PlatformInstall CRD', () => {
  it('is up to date with the generator (run `node operator/dist/crd/generate-crd.js`)', () => {
    expect(readFileSync(CRD_FILE, 'utf8')).toBe(renderCrdYaml());
  });

  it('has an up-to-date fields table in operator/README.md', () => {
    const readme = readFileSync(README_FILE, 'utf8');
    expect(readme).toBe(renderReadme(readme));
    expect(readme).toMatch(/\| `spec\.tenant\.id` \| string \| yes \|/);
  });

  const crd = parse(renderCrdYaml());
  const version = crd.spec.versions[0];

  it('names the group, version, kind, plural and short name', () => {
    expect(crd.metadata.name).toBe('platforminstalls.pelita.io');
    expect(crd.spec.group).toBe('pelita.io');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({
      kind: 'PlatformInstall',
      plural: 'platforminstalls',
      shortNames: ['pi'],
    });
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
  });

  it('has the Ready, Reason, Tenant, Services, Version and Age printer columns', () => {
    expect(version.additionalPrinterColumns).toEqual([
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
      { name: 'Tenant', type: 'string', jsonPath: '.spec.tenant.id' },
      { name: 'Services', type: 'string', jsonPath: '.status.readyServices' },
      { name: 'Version', type: 'string', jsonPath: '.spec.version' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  });

  it('is a structural schema: every node typed, no $ref or combinators, no additionalProperties: false', () => {
    const problems: string[] = [];
    walk(version.schema.openAPIV3Schema, '$', (node, at) => {
      if (typeof node.type !== 'string') problems.push(`${at}: no type`);
      for (const key of ['$ref', 'anyOf', 'oneOf', 'allOf', '$schema']) {
        if (key in node) problems.push(`${at}: ${key}`);
      }
      if (node.additionalProperties === false) problems.push(`${at}: additionalProperties false`);
      if (node.properties && node.additionalProperties)
        problems.push(`${at}: properties and additionalProperties`);
      if ('x-kubernetes-preserve-unknown-fields' in node)
        problems.push(`${at}: preserves unknown fields`);
    });
    expect(problems).toEqual([]);
  });

  it('carries defaults, enums, bounds and descriptions from the zod schema', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec;
    const replicas = spec.properties.services.properties['ocr-worker'].properties.replicas;
    expect(replicas).toMatchObject({ type: 'integer', minimum: 0, maximum: 50, default: 1 });
    expect(replicas.description).toMatch(/replicas/i);
    expect(spec.properties.image.properties.pullPolicy.enum).toEqual([
      'Always',
      'IfNotPresent',
      'Never',
    ]);
    expect(spec.properties.observability.properties.logLevel.default).toBe('info');
    expect(spec.required).toEqual(expect.arrayContaining(['tenant', 'license', 'version']));
    const status = version.schema.openAPIV3Schema.properties.status;
    expect(status.properties.conditions.items.properties.status.enum).toEqual([
      'True',
      'False',
      'Unknown',
    ]);
  });

  it('carries the cross-field rules as CEL validations', () => {
    const root = version.schema.openAPIV3Schema;
    expect(root['x-kubernetes-validations']).toEqual([
      { rule: 'self.metadata.name.size() <= 40', message: expect.stringMatching(/at most 40/) },
    ]);
    expect(root.properties.spec.properties.ingress['x-kubernetes-validations']).toEqual([
      {
        rule: '!has(self.enabled) || !self.enabled || has(self.host)',
        message: 'ingress.host is required when ingress.enabled is true',
      },
    ]);
  });

  it('carries the catalog requirements, tenant.id immutability and the volume rule as CEL', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec;
    const rules = spec['x-kubernetes-validations'] as Array<{ rule: string; message: string }>;
    const messages = rules.map((v) => v.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^user-service needs dependencies\.postgres and dependencies\.redis/),
        'user-service needs policy-sync: enable both or neither',
        expect.stringMatching(/^summarizer needs dependencies\.llm/),
      ]),
    );
    // CEL names a field with a dash `__dash__`; an unset `enabled` means the catalog's default.
    expect(rules[0]?.rule).toContain('self.services.user__dash__service.enabled : true');
    expect(spec.properties.tenant.properties.id['x-kubernetes-validations']).toEqual([
      { rule: 'self == oldSelf', message: 'tenant.id is immutable' },
    ]);
    const worker = spec.properties.services.properties['ocr-worker'];
    expect(worker['x-kubernetes-validations'][0].rule).toContain('self.volume == oldSelf.volume');
  });

  it('leaves the defaults an operator upgrade must move to the operator', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec;
    expect(spec.properties.image.properties.registry).not.toHaveProperty('default');
    expect(spec.properties.image.properties.opaImage).not.toHaveProperty('default');
    for (const service of Object.values<any>(spec.properties.services.properties)) {
      expect(service.properties.enabled).not.toHaveProperty('default');
    }
  });

  it('makes env a list map keyed by name, so apply merges entries and rejects duplicates', () => {
    const env =
      version.schema.openAPIV3Schema.properties.spec.properties.services.properties.summarizer
        .properties.env;
    expect(env['x-kubernetes-list-type']).toBe('map');
    expect(env['x-kubernetes-list-map-keys']).toEqual(['name']);
  });

  it('refuses to emit what the apiserver would reject', () => {
    expect(() => toStructural({ anyOf: [{ type: 'string' }] })).toThrow(/anyOf is not allowed/);
    expect(() => toStructural({ type: 'object', properties: { a: {} } })).toThrow(
      /\$\.a: every node needs a type/,
    );
    expect(buildCrd()).toBeDefined();
  });
});
