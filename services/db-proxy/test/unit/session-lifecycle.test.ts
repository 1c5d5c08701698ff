/** The session lifecycle both engines share, on a fake driver connection. */
import { EventEmitter } from 'node:events';
import type { Target } from '../../src/connection/params';
import { SessionLifecycle } from '../../src/engines/session-lifecycle';
import { DatabaseFailure } from '../../src/errors';

const target: Target = {
  params: {
    mode: 'postgresql',
    host: 'db.internal',
    port: 5432,
    user: 'reader',
    password: 'S3cret-Pw',
    database: 'sales',
  },
  address: '10.0.0.5',
};

function fakeConnection() {
  const events = new EventEmitter();
  const calls: string[] = [];
  const connection = {
    events,
    destroy: () => void calls.push('destroy'),
    end: () => {
      calls.push('end');
      return Promise.resolve();
    },
  };
  return { connection, calls };
}

// The engines' mappings keep a DatabaseFailure and remove the password from other messages.
const failureOf = (err: unknown, password: string) =>
  err instanceof DatabaseFailure
    ? err
    : new DatabaseFailure('database_error', String(err).replaceAll(password, '***'));

describe('SessionLifecycle', () => {
  it('opens, prepares the session, and ends a healthy connection politely', async () => {
    const { connection, calls } = fakeConnection();
    const life = new SessionLifecycle(connection, target, failureOf);
    await life.open(
      () => Promise.resolve(),
      1000,
      () => {
        calls.push('prepare');
        return Promise.resolve();
      },
    );
    expect(life.reusable).toBe(true);
    await life.close();
    expect(calls).toEqual(['prepare', 'end']);
  });

  it('gives up after the connect time-out, drops the socket and closes a connection that opens late', async () => {
    const { connection, calls } = fakeConnection();
    const life = new SessionLifecycle(connection, target, failureOf);
    let opened: () => void = () => undefined;
    const connect = new Promise<void>((resolve) => (opened = resolve));
    await expect(life.open(() => connect, 20)).rejects.toMatchObject({
      kind: 'connect_timeout',
      message: 'No connection to db.internal:5432 within 20 ms',
    });
    expect(life.reusable).toBe(false);
    expect(calls).toContain('destroy');
    calls.length = 0;
    opened();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['destroy']);
  });

  it('maps a failure to connect or prepare without the password, and drops the connection', async () => {
    const { connection, calls } = fakeConnection();
    const life = new SessionLifecycle(connection, target, failureOf);
    const failure = await life
      .open(
        () => Promise.resolve(),
        1000,
        () => Promise.reject(new Error('password S3cret-Pw refused')),
      )
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({
      kind: 'database_error',
      message: 'Error: password *** refused',
    });
    expect(calls).toEqual(['destroy']);
    expect(life.reusable).toBe(false);
  });

  it('maps the failure of a request, and never reuses a connection that errored or ended', async () => {
    for (const event of ['error', 'end']) {
      const { connection, calls } = fakeConnection();
      const life = new SessionLifecycle(connection, target, failureOf);
      await expect(life.run(() => Promise.reject(new Error('S3cret-Pw')))).rejects.toMatchObject({
        message: 'Error: ***',
      });
      expect(life.reusable).toBe(true);
      connection.events.emit(event, new Error('gone')); // no listener would crash the process
      expect(life.reusable).toBe(false);
      await life.close();
      expect(calls).toEqual(['destroy']);
    }
  });
});
