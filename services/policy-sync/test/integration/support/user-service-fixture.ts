/**
 * Stand-in for the user service's two open-api endpoints, over real HTTP, with data the test
 * changes. It follows the contract in the policy-sync README; the real user service replaces it
 * in the end-to-end tests of the user-service issue.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Grant {
  id: number;
  name: string;
  label: string;
  method: string;
  path: string;
  status: boolean;
}

export interface UserServiceFixture {
  url: string;
  userRoles: Record<string, string[]>;
  roleGrants: Record<string, Grant[]>;
  /** Status answered instead of 200, by path (`/open-api/role-users`). */
  failures: Map<string, number>;
  /** Body answered instead of the data, by path (e.g. a body outside the contract). */
  bodies: Map<string, string>;
  /** Wait before answering, in ms. */
  delayMs: number;
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** Most requests for one path in flight at once, since the last reset. */
  maxInFlight: Map<string, number>;
  close(): Promise<void>;
}

export function grant(id: number, method: string, path: string, status = true): Grant {
  return { id, name: `grant-${id}`, label: `Grant ${id}`, method, path, status };
}

export async function startUserService(
  initial: Pick<UserServiceFixture, 'userRoles' | 'roleGrants'>,
): Promise<UserServiceFixture> {
  const inFlight = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    fixture.requests.push({ path, headers: req.headers });
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    fixture.maxInFlight.set(path, Math.max(now, fixture.maxInFlight.get(path) ?? 0));
    setTimeout(() => {
      inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
      answer(path);
    }, fixture.delayMs);

    function answer(path: string) {
      const failure = fixture.failures.get(path);
      if (failure !== undefined) {
        res.writeHead(failure, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'unavailable' }));
        return;
      }
      const body =
        fixture.bodies.get(path) ??
        (path === '/open-api/role-users'
          ? JSON.stringify({ user_roles: fixture.userRoles })
          : path === '/open-api/role-grants'
            ? JSON.stringify({ policies: fixture.roleGrants })
            : undefined);
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const fixture: UserServiceFixture = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    userRoles: initial.userRoles,
    roleGrants: initial.roleGrants,
    failures: new Map(),
    bodies: new Map(),
    delayMs: 0,
    requests: [],
    maxInFlight: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fixture;
}
