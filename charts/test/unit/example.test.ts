// examples/platforminstall.yaml must stay a valid, self-contained tenant: its PlatformInstall
// parses with the operator's schema, and every Secret it refers to is in the same file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  API_VERSION,
  KIND,
  MAX_INSTALL_NAME_LENGTH,
  SERVICE_NAMES,
  parseSpec,
  type SecretKeyRef,
} from '@pelita/operator';

const ROOT = path.resolve(__dirname, '../../..');
const docs: any[] = parseAllDocuments(
  readFileSync(path.join(ROOT, 'examples/platforminstall.yaml'), 'utf8'),
).map((doc): unknown => {
  if (doc.errors.length > 0) throw new Error(String(doc.errors[0]));
  const value: unknown = doc.toJS();
  return value;
});
const installs = docs.filter((d) => d.kind === KIND);
const install = installs[0];
const secrets = docs.filter((d) => d.apiVersion === 'v1' && d.kind === 'Secret');

/** Every SecretKeyRef-shaped value in the spec, with its path. */
function secretRefs(node: unknown, at: string, out: Array<{ at: string; ref: SecretKeyRef }>) {
  if (node === null || typeof node !== 'object') return out;
  for (const [key, value] of Object.entries(node)) {
    if (key.endsWith('SecretRef') && value && typeof value === 'object' && 'key' in value) {
      out.push({ at: `${at}.${key}`, ref: value as SecretKeyRef });
    } else {
      secretRefs(value, `${at}.${key}`, out);
    }
  }
  return out;
}

function secretKeys(name: string): string[] | undefined {
  const secret = secrets.find((s) => s.metadata.name === name);
  return secret ? Object.keys({ ...secret.data, ...secret.stringData }) : undefined;
}

describe('examples/platforminstall.yaml', () => {
  it('holds one PlatformInstall of the current API version', () => {
    expect(installs).toHaveLength(1);
    expect(install.apiVersion).toBe(API_VERSION);
    expect(install.metadata.name.length).toBeLessThanOrEqual(MAX_INSTALL_NAME_LENGTH);
  });

  it('has a spec the operator accepts', () => {
    expect(() => parseSpec(install.spec)).not.toThrow();
  });

  it('keeps everything in one namespace, which the file creates', () => {
    const namespace = install.metadata.namespace;
    expect(docs.find((d) => d.kind === 'Namespace')?.metadata.name).toBe(namespace);
    for (const doc of docs.filter((d) => d.kind !== 'Namespace')) {
      expect(doc.metadata.namespace).toBe(namespace);
    }
  });

  it('defines every Secret and key the install refers to', () => {
    const spec = parseSpec(install.spec);
    const refs = secretRefs(spec, 'spec', []);
    expect(refs.length).toBeGreaterThan(5);
    const missing = refs
      .filter(({ ref }) => !secretKeys(ref.name)?.includes(ref.key))
      .map(({ at, ref }) => `${at}: ${ref.name}/${ref.key}`);
    expect(missing).toEqual([]);
    expect(secretKeys(spec.license.credentialsSecretRef.name)).toEqual(
      expect.arrayContaining(['username', 'password']),
    );
    if (spec.platformSecretRef) expect(secretKeys(spec.platformSecretRef.name)).toBeDefined();
    if (spec.bootstrapAdmin) {
      expect(secretKeys(spec.bootstrapAdmin.secretRef.name)).toEqual(
        expect.arrayContaining(['email', 'password']),
      );
    }
  });

  it('marks every Secret value as a placeholder, except user names and addresses', () => {
    for (const secret of secrets) {
      for (const [key, value] of Object.entries<string>(secret.stringData ?? {})) {
        if (/user(name)?$|^email$/i.test(key)) continue;
        expect(`${secret.metadata.name}/${key}: ${value}`).toMatch(/: change-me-/);
      }
      expect(secret.data).toBeUndefined();
    }
  });

  it('runs the document pipeline: OCR API and workers, office converter, OCR engine', () => {
    const spec = parseSpec(install.spec);
    const pipeline = ['ocr-service', 'ocr-worker', 'office-converter', 'ocr-engine'] as const;
    expect(pipeline.filter((name) => !spec.services[name].enabled)).toEqual([]);
  });

  it('enables only services that exist in services/', () => {
    const spec = parseSpec(install.spec);
    const enabled = SERVICE_NAMES.filter((name) => spec.services[name].enabled);
    expect(enabled.length).toBeGreaterThan(0);
    for (const name of enabled) {
      const folder = name === 'ocr-worker' ? 'ocr-service' : name;
      expect({ name, exists: existsSync(path.join(ROOT, 'services', folder)) }).toEqual({
        name,
        exists: true,
      });
    }
  });
});
