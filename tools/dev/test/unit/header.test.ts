import { headerLines, type HeaderFacts } from '../../src/header';

const facts: HeaderFacts = {
  chatPage: 'http://127.0.0.1:4001/chat',
  loginUrl: 'http://127.0.0.1:4010/auth/login',
  admin: { email: 'admin@pelita.dev', password: 'dev-pw', passwordFile: '/s/dev/admin.password' },
  processes: [
    { name: 'core-backend', url: 'http://127.0.0.1:4001', what: 'docs: /api-docs' },
    { name: 'ocr-worker', url: 'http://127.0.0.1:4012/metrics', what: '' },
  ],
  testServers: [['POSTGRES_URL', 'postgres://127.0.0.1:55432/pelita']],
  node: { path: '/n/bin/node', version: 'v24.21.0', images: true },
  logDir: '/s/dev/logs',
  kubectl: undefined,
};

describe('headerLines', () => {
  it('opens with the chat page and the login, then lists what runs and where the logs are', () => {
    expect(headerLines(facts)).toEqual([
      'Chat with Pelita: http://127.0.0.1:4001/chat',
      '  log in as admin@pelita.dev, password dev-pw (kept in /s/dev/admin.password)',
      '',
      'Processes (on Node v24.21.0, as in the images):',
      '  core-backend  http://127.0.0.1:4001  docs: /api-docs',
      '  ocr-worker    http://127.0.0.1:4012/metrics',
      'Test servers (`make testenv`):',
      '  POSTGRES_URL  postgres://127.0.0.1:55432/pelita',
      'Full JSON logs: /s/dev/logs/<process>.log. Ctrl-C stops the processes; `make testenv-down` the test servers.',
      '',
    ]);
  });

  it("without the core backend, the user service's login comes first", () => {
    expect(headerLines({ ...facts, chatPage: undefined }).slice(0, 2)).toEqual([
      "Pelita's user service: POST http://127.0.0.1:4010/auth/login",
      '  log in as admin@pelita.dev, password dev-pw (kept in /s/dev/admin.password)',
    ]);
  });

  it("says when the services run on this machine's Node, and how to get the images' one", () => {
    const lines = headerLines({
      ...facts,
      node: { path: '/usr/bin/node', version: 'v20.20.2', images: false },
    });
    expect(lines).toContain(
      "Processes (on this machine's Node v20.20.2 (the images' Node is not cached: `make bench` fetches it)):",
    );
  });

  it('shows the kubectl commands to try when the operator runs', () => {
    const lines = headerLines({ ...facts, kubectl: 'kubectl --kubeconfig k' });
    expect(lines).toContain('Try: kubectl --kubeconfig k apply -f examples/platforminstall.yaml');
  });
});
