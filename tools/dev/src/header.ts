/**
 * What `make dev` prints before any process starts: where to chat and who to log in as first,
 * then every process with its address, the test servers, where the logs are and how to stop.
 */
import type { NodeRuntime } from './images-node';

export interface Listed {
  name: string;
  url: string;
  /** What it is, in a few words. */
  what: string;
}

export interface HeaderFacts {
  /** The chat page, when the core backend is built. */
  chatPage?: string | undefined;
  /** Where to log in without the chat page (the user service's login endpoint). */
  loginUrl?: string | undefined;
  admin: { email: string; password: string; passwordFile: string };
  processes: Listed[];
  /** The test servers' addresses from `make testenv`'s env file. */
  testServers: Array<[string, string]>;
  node: NodeRuntime;
  logDir: string;
  /** The kubectl command line of the dev cluster, when the operator runs. */
  kubectl?: string | undefined;
}

export function headerLines(facts: HeaderFacts): string[] {
  const { admin } = facts;
  const login = `log in as ${admin.email}, password ${admin.password} (kept in ${admin.passwordFile})`;
  const first = facts.chatPage
    ? [`Chat with Pelita: ${facts.chatPage}`, `  ${login}`]
    : facts.loginUrl
      ? [`Pelita's user service: POST ${facts.loginUrl}`, `  ${login}`]
      : ['No service has a built entry yet (services/<name>/dist/main.js): `make build`.'];
  const width = Math.max(0, ...facts.processes.map((listed) => listed.name.length)) + 2;
  const node = facts.node.images
    ? `Node ${facts.node.version}, as in the images`
    : `this machine's Node ${facts.node.version} (the images' Node is not cached: \`make bench\` fetches it)`;
  return [
    ...first,
    '',
    `Processes (on ${node}):`,
    ...facts.processes.map((listed) =>
      `  ${listed.name.padEnd(width)}${listed.url}  ${listed.what}`.trimEnd(),
    ),
    `Test servers (\`make testenv\`):`,
    ...facts.testServers.map(([key, value]) => `  ${key.padEnd(width)}${value}`),
    ...(facts.kubectl
      ? [
          `Try: ${facts.kubectl} apply -f examples/platforminstall.yaml`,
          `     ${facts.kubectl} get pi -A --watch`,
        ]
      : []),
    `Full JSON logs: ${facts.logDir}/<process>.log. Ctrl-C stops the processes; \`make testenv-down\` the test servers.`,
    '',
  ];
}
