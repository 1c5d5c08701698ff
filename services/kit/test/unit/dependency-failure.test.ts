import { toHttpError } from '../../src/errors';

const withCode = (message: string, code: string) =>
  Object.assign(new Error(message), { code }) as NodeJS.ErrnoException;

describe('an unreachable dependency', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ["mysql2's lost connection", withCode('Connection lost', 'PROTOCOL_CONNECTION_LOST')],
    ["pg-pool's connect time-out", new Error('timeout exceeded when trying to connect')],
    ['a PostgreSQL connection gone', new Error('Connection terminated unexpectedly')],
    ['a Redis connection gone', new Error('Connection is closed.')],
    [
      "ioredis's spent retries",
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    [
      "fetch's failure wrapping the socket's",
      new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
    ],
  ])('%s is a 503 that names no host', (_what, err) => {
    const answer = toHttpError(err);
    expect(answer.status).toBe(503);
    expect(answer.code).toBe('dependency_unavailable');
    expect(answer.message).not.toMatch(/127\.0\.0\.1|db|ECONN/);
    expect(answer.cause).toBe(err);
  });

  it('leaves other errors a 500 that reveals nothing', () => {
    for (const err of [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      withCode('permission denied for table users', '42501'),
      new Error('fetch failed', { cause: new Error('bad certificate') }),
    ]) {
      const answer = toHttpError(err);
      expect(answer.status).toBe(500);
      expect(answer.message).toBe('Internal server error');
    }
  });
});
