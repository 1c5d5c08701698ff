/**
 * The user directory writes a name only when it is new here; the sign-in relay answers 503
 * without a user service rather than calling anything.
 */
import { createSignInRelay } from '../../src/auth/sign-in-relay';
import { createUserDirectory } from '../../src/users/user-directory';
import type { UserRepository } from '../../src/users/user-repository';
import { refused } from './access-fakes';

function directory() {
  const writes: string[] = [];
  const repository: UserRepository = {
    upsertName: (id, username) => Promise.resolve(void writes.push(`${id}=${username}`)),
    upsert: (id, username, fullName) =>
      Promise.resolve(void writes.push(`${id}=${username} (${fullName ?? 'kept'})`)),
    exists: (id) => Promise.resolve(id === 'known'),
  };
  return { users: createUserDirectory(repository), writes };
}

describe('user directory', () => {
  it('writes a name only when it changed since the last request', async () => {
    const { users, writes } = directory();
    await users.remember('u1', 'ann');
    await users.remember('u1', 'ann');
    await users.remember('u1', 'anna');
    expect(writes).toEqual(['u1=ann', 'u1=anna']);
  });

  it("takes the user service's copy as known: the next request with it writes nothing", async () => {
    const { users, writes } = directory();
    await users.rename('u2', { username: 'bob' });
    await users.remember('u2', 'bob');
    expect(writes).toEqual(['u2=bob (kept)']);
    expect([await users.exists('known'), await users.exists('u2')]).toEqual([true, false]);
  });
});

describe('sign-in relay', () => {
  it('answers 503 when no user service is configured', async () => {
    const relay = createSignInRelay({ userServiceUrl: undefined, timeoutMs: 1000 });
    await expect(relay('/auth/login', { forwardedFor: '10.0.0.1' })).rejects.toEqual(refused(503));
  });
});
