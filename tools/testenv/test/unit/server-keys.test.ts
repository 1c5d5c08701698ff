import { servers } from '../../src/cli/registry';
import { resolveSettings } from '../../src/lib/settings';
import { SERVER_KEYS } from '../../src/lib/server-keys';

describe('SERVER_KEYS (what requireEnv names in its errors)', () => {
  const settings = resolveSettings({}, 1000, '/home/someone');

  it('lists every server of the registry, in its order', () => {
    expect(Object.keys(SERVER_KEYS)).toEqual(servers.map((server) => server.name));
  });

  it.each(servers.map((server) => [server.name, server] as const))(
    'lists exactly the keys %s writes to the env file',
    (name, server) => {
      expect(Object.keys(server.env(settings))).toEqual(
        SERVER_KEYS[name as keyof typeof SERVER_KEYS],
      );
    },
  );
});
