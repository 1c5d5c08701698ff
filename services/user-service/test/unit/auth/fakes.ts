/** Small in-memory fakes of what the auth flows use, shared by their unit tests. */
import { createLogger, type Logger } from '@pelita/kit';
import { Writable } from 'node:stream';
import type { SessionStore } from '../../../src/credentials/session-store';
import type { User } from '../../../src/users/user-repository';

export function user(fields: Partial<User> = {}): User {
  return {
    id: 'u-1',
    email: 'ada@pelita.test',
    username: 'ada',
    fullName: 'Ada',
    passwordHash: 'scrypt$unset',
    isActive: true,
    emailVerified: true,
    roleId: 2,
    roleName: 'user',
    roleLevel: 100,
    photoKey: null,
    photoType: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...fields,
  };
}

/** Users by id, looked up by id or (case-insensitively) by e-mail. */
export function fakeUsers(...initial: User[]) {
  const byId = new Map(initial.map((u) => [u.id, u]));
  return {
    byId,
    find: (id: string) => Promise.resolve(byId.get(id)),
    findByEmail: (email: string) =>
      Promise.resolve(
        [...byId.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()),
      ),
    setPassword: (id: string, passwordHash: string) => {
      const found = byId.get(id);
      if (found) byId.set(id, { ...found, passwordHash });
      return Promise.resolve();
    },
  };
}

type Sessions = Pick<
  SessionStore,
  'create' | 'rotate' | 'sessionOf' | 'revoke' | 'revokeAllOf' | 'revokeAllBut'
>;

/** The session store's contract (create, compare-and-swap rotate, revoke) over two maps. */
export function fakeSessions(): Sessions & {
  live: Map<string, { user: string; refresh: string; jti: string }>;
} {
  const live = new Map<string, { user: string; refresh: string; jti: string }>();
  const accessJtis = new Map<string, string>();
  const revoke = (sid: string) => {
    const session = live.get(sid);
    if (session) accessJtis.delete(session.jti);
    live.delete(sid);
    return Promise.resolve();
  };
  return {
    live,
    create(sid, userId, jti, refreshHash) {
      live.set(sid, { user: userId, refresh: refreshHash, jti });
      accessJtis.set(jti, sid);
      return Promise.resolve();
    },
    async rotate(sid, presentedHash, newHash, newJti) {
      const session = live.get(sid);
      if (!session) return { outcome: 'unknown' };
      if (session.refresh !== presentedHash) {
        await revoke(sid);
        return { outcome: 'reused' };
      }
      accessJtis.delete(session.jti);
      live.set(sid, { ...session, refresh: newHash, jti: newJti });
      accessJtis.set(newJti, sid);
      return { outcome: 'rotated', userId: session.user };
    },
    sessionOf: (jti) => Promise.resolve(accessJtis.get(jti) ?? null),
    revoke,
    async revokeAllOf(userId) {
      for (const [sid, session] of live) if (session.user === userId) await revoke(sid);
    },
    async revokeAllBut(userId, keepSid) {
      for (const [sid, session] of live) {
        if (session.user === userId && sid !== keepSid) await revoke(sid);
      }
    },
  };
}

/** A logger whose lines the test can read. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'debug', destination }), lines };
}
