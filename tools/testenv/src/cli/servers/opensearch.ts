// OpenSearch from Maven Central's integ-test-zip: the minimal distribution (no security plugin,
// plain HTTP, no bundled JDK: it runs on the system's Java 17). It refuses to run as root.
// The k-NN plugin (also from Maven Central, the version matching the server) is installed into
// it for vector fields; Pelita uses its `lucene` engine, pure Java, so the plugin's native
// faiss/nmslib libraries (not in the Maven zip) are not needed. The plugin extends the
// `lang-painless` module, which the integ-test-zip leaves out: it is put together from its
// Maven Central jars (the module's jar and its dependencies, as the full distribution ships them).
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { fetchMavenArtifacts, type MavenArtifact, mavenArtifactFile } from '../maven';
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

const KNN_PLUGIN: MavenArtifact = {
  groupId: 'org.opensearch.plugin',
  artifactId: 'opensearch-knn',
  version: `${OPENSEARCH.version}.0`,
  type: 'zip',
};

const PAINLESS_VERSION = OPENSEARCH.version;
/** `modules/lang-painless` of the full distribution: the module and what it depends on. */
const PAINLESS_JARS: MavenArtifact[] = [
  ['org.opensearch.plugin', 'lang-painless', PAINLESS_VERSION],
  ['org.opensearch.plugin', 'opensearch-scripting-painless-spi', PAINLESS_VERSION],
  ['org.antlr', 'antlr4-runtime', '4.13.1'],
  ['org.ow2.asm', 'asm', '9.7'],
  ['org.ow2.asm', 'asm-analysis', '9.7'],
  ['org.ow2.asm', 'asm-commons', '9.7'],
  ['org.ow2.asm', 'asm-tree', '9.7'],
  ['org.ow2.asm', 'asm-util', '9.7'],
].map(([groupId, artifactId, version]) => ({
  groupId: groupId!,
  artifactId: artifactId!,
  version: version!,
  type: 'jar',
}));

const PAINLESS_DESCRIPTOR = `description=An easy, safe and fast scripting language for OpenSearch
version=${PAINLESS_VERSION}
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version=${OPENSEARCH.version}
custom.foldername=
extended.plugins=
has.native.controller=false
`;
// The module's own policy: it compiles scripts into classes at run time.
const PAINLESS_POLICY = `grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
`;

/** Puts `modules/lang-painless` into an unpacked distribution. */
function addPainless(distribution: string, jars: readonly string[]): void {
  const dir = path.join(distribution, 'modules', 'lang-painless');
  fs.mkdirSync(dir, { recursive: true });
  for (const jar of jars) fs.renameSync(jar, path.join(dir, path.basename(jar)));
  fs.writeFileSync(path.join(dir, 'plugin-descriptor.properties'), PAINLESS_DESCRIPTOR);
  fs.writeFileSync(path.join(dir, 'plugin-security.policy'), PAINLESS_POLICY);
}

/**
 * The unpacked distribution with its plugins; its name carries the versions, so a bump unpacks
 * a new one.
 */
function home(settings: Settings): string {
  return path.join(settings.cacheDir, `opensearch-${OPENSEARCH.version}-knn`);
}

/** JAVA_HOME of the `java` on PATH (Debian links /usr/bin/java through alternatives). */
function javaHome(): string {
  const java = findExecutable('java');
  if (java === undefined) throw new Error('java not found on PATH (OpenSearch needs Java 17+)');
  return path.dirname(path.dirname(fs.realpathSync(java)));
}

/**
 * Unpacks into a scratch dir, installs the plugin there, and renames: an interrupted install is
 * redone from the start.
 */
async function unpack(settings: Settings, zip: string, plugin: string, jars: readonly string[]) {
  const scratch = `${home(settings)}.unpack`;
  fs.rmSync(scratch, { recursive: true, force: true });
  await runChecked('unzip', ['-q', zip, '-d', scratch]);
  const [top] = fs.readdirSync(scratch);
  if (top === undefined) throw new Error(`${zip} is empty`);
  const unpacked = path.join(scratch, top);
  addPainless(unpacked, jars);
  await runChecked(
    path.join(unpacked, 'bin', 'opensearch-plugin'),
    ['install', '--batch', `file://${plugin}`],
    { env: { OPENSEARCH_JAVA_HOME: javaHome() } },
  );
  fs.renameSync(unpacked, home(settings));
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
    const downloads = path.join(ctx.cacheDir, 'downloads');
    await fetchMavenArtifacts([OPENSEARCH, KNN_PLUGIN, ...PAINLESS_JARS], downloads);
    const zip = mavenArtifactFile(OPENSEARCH, downloads);
    const plugin = mavenArtifactFile(KNN_PLUGIN, downloads);
    const jars = PAINLESS_JARS.map((jar) => mavenArtifactFile(jar, downloads));
    await unpack(ctx, zip, plugin, jars);
    // Maven's local repository keeps a copy; these were only needed for the install.
    fs.rmSync(zip);
    fs.rmSync(plugin);
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
