// OpenSearch from Maven Central's integ-test-zip: the minimal distribution (no security plugin,
// plain HTTP, no bundled JDK: it runs on the system's Java 17). It refuses to run as root.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { fetchMavenArtifact, type MavenArtifact } from '../maven';
import { httpOk } from '../probes';
import { findExecutable, runChecked, spawnDaemon, stopDaemon } from '../proc';
import {
  type Context,
  type Server,
  makeOwnedDir,
  serverHome,
  serverPaths,
  writeOwnedFile,
} from '../server';

const NAME = 'opensearch';
const PORT = 59200;
const TRANSPORT_PORT = 59300;
const HEAP = '512m';

const OPENSEARCH: MavenArtifact = {
  groupId: 'org.opensearch.distribution.integ-test-zip',
  artifactId: 'opensearch',
  version: '2.19.6',
  type: 'zip',
};

/** The unpacked distribution; its name carries the version, so a bump unpacks a new one. */
function home(settings: Settings): string {
  return path.join(settings.cacheDir, `opensearch-${OPENSEARCH.version}`);
}

/** JAVA_HOME of the `java` on PATH (Debian links /usr/bin/java through alternatives). */
function javaHome(): string {
  const java = findExecutable('java');
  if (java === undefined) throw new Error('java not found on PATH (OpenSearch needs Java 17+)');
  return path.dirname(path.dirname(fs.realpathSync(java)));
}

/** Unpacks into a scratch dir and renames, so an interrupted unpack is redone. */
async function unpack(settings: Settings, zip: string): Promise<void> {
  const scratch = `${home(settings)}.unpack`;
  fs.rmSync(scratch, { recursive: true, force: true });
  await runChecked('unzip', ['-q', zip, '-d', scratch]);
  const [top] = fs.readdirSync(scratch);
  if (top === undefined) throw new Error(`${zip} is empty`);
  fs.renameSync(path.join(scratch, top), home(settings));
  fs.rmSync(scratch, { recursive: true, force: true });
}

/**
 * A private config dir: the distribution in the cache stays read-only and shared. The launcher
 * runs from the distribution's home, so jvm.options' relative log and dump paths are made absolute.
 */
function writeConfig(ctx: Context, dir: string): string {
  const config = path.join(dir, 'config');
  const source = path.join(home(ctx), 'config');
  makeOwnedDir(ctx, path.join(config, 'jvm.options.d'));
  const jvmOptions = fs
    .readFileSync(path.join(source, 'jvm.options'), 'utf8')
    .replace(/([=:])logs\//g, `$1${dir}/logs/`)
    .replace('HeapDumpPath=data', `HeapDumpPath=${dir}/data`);
  writeOwnedFile(ctx, path.join(config, 'jvm.options'), jvmOptions);
  // Options in jvm.options.d override jvm.options (whose default heap is 1g).
  writeOwnedFile(
    ctx,
    path.join(config, 'jvm.options.d', 'heap.options'),
    `-Xms${HEAP}\n-Xmx${HEAP}\n`,
  );
  const log4j = fs.readFileSync(path.join(source, 'log4j2.properties'), 'utf8');
  writeOwnedFile(ctx, path.join(config, 'log4j2.properties'), log4j);
  const settings = {
    'cluster.name': 'pelita-testenv',
    'node.name': 'pelita',
    'network.host': '127.0.0.1',
    'http.port': PORT,
    'transport.port': TRANSPORT_PORT,
    'discovery.type': 'single-node',
    'path.data': path.join(dir, 'data'),
    'path.logs': path.join(dir, 'logs'),
    // Disk watermarks would turn indices read-only on a fuller disk; test data is tiny.
    'cluster.routing.allocation.disk.threshold_enabled': false,
  };
  const yaml = Object.entries(settings).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  writeOwnedFile(ctx, path.join(config, 'opensearch.yml'), yaml.join('\n') + '\n');
  return config;
}

export const opensearch: Server = {
  name: NAME,
  startTimeoutMs: 180_000,

  isInstalled: (settings) =>
    fs.existsSync(path.join(home(settings), 'bin', 'opensearch')) &&
    findExecutable('java') !== undefined,

  async install(ctx) {
    const tools = { java: 'openjdk-17-jre-headless', mvn: 'maven', unzip: 'unzip' };
    await ctx.apt(
      Object.entries(tools)
        .filter(([bin]) => !findExecutable(bin))
        .map(([, pkg]) => pkg),
    );
    if (fs.existsSync(home(ctx))) return;
    const zip = await fetchMavenArtifact(OPENSEARCH, path.join(ctx.cacheDir, 'downloads'));
    await unpack(ctx, zip);
    // Maven's local repository keeps a copy; this one was only needed for unzip.
    fs.rmSync(zip);
  },

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    for (const sub of ['data', 'logs', 'tmp']) makeOwnedDir(ctx, path.join(dir, sub));
    const config = writeConfig(ctx, dir);
    spawnDaemon({
      command: path.join(home(ctx), 'bin', 'opensearch'),
      args: [],
      cwd: dir,
      env: {
        ...serverHome(ctx, dir),
        OPENSEARCH_PATH_CONF: config,
        OPENSEARCH_JAVA_HOME: javaHome(),
        OPENSEARCH_TMPDIR: path.join(dir, 'tmp'),
      },
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () =>
    httpOk(`http://127.0.0.1:${PORT}/_cluster/health`, (body) => {
      const { status } = JSON.parse(body) as { status?: string };
      return status === 'green' || status === 'yellow';
    }),

  env: () => ({ OPENSEARCH_URL: `http://127.0.0.1:${PORT}` }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
