// The rules of images/*.Dockerfile that hadolint does not check (its lint runs in the integration
// project), and that every deployable workspace has an image.
import fs from 'node:fs';
import path from 'node:path';
import { baseImage, type Stage, stages } from '../dockerfile';

const ROOT = path.resolve(__dirname, '../../..');
const IMAGES = path.join(ROOT, 'images');
/** The parametrised image of plain Node services (`--build-arg SERVICE=<name>`). */
const SERVICE_DOCKERFILE = 'service.Dockerfile';
/** Node 24 LTS on Debian 12, by tag (a more precise tag or a digest also passes). */
const NODE_24 = /^node:24(\.\d+){0,2}-bookworm-slim(@sha256:[0-9a-f]{64})?$/;
/** Services the seed specifies that are not written yet: their images may come first. */
const PLANNED_SERVICES = ['license-service', 'core-backend'];
const OCI_LABELS = ['title', 'description', 'licenses', 'version', 'revision'].map(
  (name) => `org.opencontainers.image.${name}`,
);

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

const readManifest = (folder: string): Manifest =>
  JSON.parse(fs.readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as Manifest;

const serviceFolders = fs
  .readdirSync(path.join(ROOT, 'services'))
  .filter((name) => fs.existsSync(path.join(ROOT, 'services', name, 'package.json')));

/** Deployable workspace name -> its folder: the operator and every service but the kit. */
const deployables = new Map<string, string>([
  ['operator', 'operator'],
  ...serviceFolders
    .filter((name) => name !== 'kit')
    .map((name): [string, string] => [name, `services/${name}`]),
]);

/** Workspace package name -> folder, to find what a deployable's image must also copy. */
const workspaceFolders = new Map(
  ['operator', ...serviceFolders.map((name) => `services/${name}`)].map((folder) => [
    readManifest(folder).name,
    folder,
  ]),
);

const dockerfiles = fs
  .readdirSync(IMAGES)
  .filter((file) => file.endsWith('.Dockerfile'))
  .sort();

const read = (file: string): string => fs.readFileSync(path.join(IMAGES, file), 'utf8');

function dockerfileFor(name: string): string {
  return dockerfiles.includes(`${name}.Dockerfile`) ? `${name}.Dockerfile` : SERVICE_DOCKERFILE;
}

describe.each(dockerfiles)('images/%s', (file) => {
  const all = stages(read(file));
  const final = all.at(-1) as Stage;
  const finalArgs = (keyword: string): string[] =>
    final.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  test('is multi-stage: the runtime stage does not carry the build', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
  });

  test('every stage, the runtime one included, is built on Node 24 (bookworm-slim)', () => {
    for (const stage of all) expect(baseImage(all, stage)).toMatch(NODE_24);
  });

  test('the runtime stage runs as a numeric non-root user (runAsNonRoot can verify it)', () => {
    const user = finalArgs('USER').at(-1);
    expect(user).toMatch(/^[1-9][0-9]*(:[1-9][0-9]*)?$/);
  });

  test('the runtime stage installs no npm packages except production ones', () => {
    for (const run of finalArgs('RUN')) {
      if (/\bnpm\s+(ci|install|i)\b/.test(run)) expect(run).toContain('--omit=dev');
    }
  });

  test('every stage installs npm packages with `npm ci` (exactly the lock file), never `npm install`', () => {
    const runs = all.flatMap((stage) =>
      stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args),
    );
    const installs = runs.filter((run) => /\bnpm\s+(ci|install|i)\b/.test(run));
    expect(installs.length).toBeGreaterThan(0);
    for (const run of installs) expect(run).not.toMatch(/\bnpm\s+(install|i)\b/);
  });

  test('the command is exec form running node (signals reach it; no shell, no npm)', () => {
    const cmd = finalArgs('CMD').at(-1);
    expect(cmd).toBeDefined();
    const argv: unknown = JSON.parse(cmd as string);
    expect(Array.isArray(argv) && argv.every((a) => typeof a === 'string')).toBe(true);
    expect((argv as string[])[0]).toBe('node');
    for (const entrypoint of finalArgs('ENTRYPOINT')) expect(entrypoint).toMatch(/^\[/);
  });

  test('the runtime stage carries the OCI labels', () => {
    const labels = finalArgs('LABEL').join(' ');
    for (const label of OCI_LABELS) expect(labels).toContain(`${label}=`);
  });
});

test('the manifests and build stages are the same in every Dockerfile (one compile per commit)', () => {
  // Instructions only: comments differ, and buildah's layer cache does not see them.
  const buildStages = (file: string) =>
    stages(read(file))
      .filter((stage) => stage.alias === 'manifests' || stage.alias === 'build')
      .map((stage) => stage.instructions.map((i) => `${i.keyword} ${i.args}`));
  const reference = buildStages(SERVICE_DOCKERFILE);
  expect(reference).toHaveLength(2);
  for (const file of dockerfiles) expect(buildStages(file)).toEqual(reference);
});

describe('images of the deployables', () => {
  test.each([...deployables])(
    '%s has one and it copies the workspaces it depends on',
    (name, folder) => {
      const file = dockerfileFor(name);
      const text = read(file);
      const uses = Object.keys(readManifest(folder).dependencies ?? {})
        .map((dep) => workspaceFolders.get(dep))
        .filter((dep): dep is string => dep !== undefined);
      if (file === SERVICE_DOCKERFILE) {
        // The parametrised image copies the kit only; anything else needs a dedicated Dockerfile.
        expect(uses.filter((dep) => dep !== 'services/kit')).toEqual([]);
      } else {
        for (const dep of [folder, ...uses]) expect(text).toContain(`${dep}/dist`);
      }
    },
  );

  test('every dedicated Dockerfile belongs to a deployable or a planned service', () => {
    const known = new Set([...deployables.keys(), ...PLANNED_SERVICES]);
    const dedicated = dockerfiles
      .filter((file) => file !== SERVICE_DOCKERFILE)
      .map((file) => file.replace(/\.Dockerfile$/, ''));
    expect(dedicated.filter((name) => !known.has(name))).toEqual([]);
  });
});
