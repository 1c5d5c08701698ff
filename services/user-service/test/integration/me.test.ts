/**
 * Self-service: a user of the built-in `user` role reads their own account and changes their
 * password — the current one required, the session asking kept, every other session and
 * every reset link ended — and an administrator lists and ends a user's sessions; through the
 * real OPA and Redis.
 */
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';

describe('/me', () => {
  let platform: Platform;
  const username = `self${randomBytes(3).toString('hex')}`;
  const email = `${username}@pelita.test`;
  let userId: string;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    await waitFor(() => platform.allows(ADMIN.username, 'GET', '/users'), 'the admin grants');
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
    const roles = (await (await platform.request('GET', '/roles', { token: admin })).json()) as {
      data: Array<{ id: number; name: string }>;
    };
    const created = await platform.request('POST', '/users', {
      token: admin,
      body: {
        email,
        username,
        full_name: 'Self Service',
        password: 'first-password-1',
        role_id: roles.data.find((role) => role.name === 'user')!.id,
      },
    });
    expect(created.status).toBe(201);
    userId = ((await created.json()) as { id: string }).id;
    await waitFor(() => platform.allows(username, 'PUT', '/me/password'), 'the user in OPA');
  });
  afterAll(() => platform?.stop());

  const me = (token: string) => platform.request('GET', '/me', { token });

  it('answers your own account, without the password hash', async () => {
    const { access_token } = await platform.login(email, 'first-password-1');
    const res = await me(access_token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: userId, username, email, role: { name: 'user' } });
    expect(JSON.stringify(body)).not.toMatch(/hash|scrypt|first-password/);
  });

  it('changes your password with the current one; other sessions end, this one stays', async () => {
    const here = await platform.login(email, 'first-password-1');
    const elsewhere = await platform.login(email, 'first-password-1');

    const wrong = await platform.request('PUT', '/me/password', {
      token: here.access_token,
      body: { current_password: 'not-it-at-all', new_password: 'second-password-2' },
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { code: 'password_confirmation_required' } });
    expect((await me(elsewhere.access_token)).status).toBe(200);

    const short = await platform.request('PUT', '/me/password', {
      token: here.access_token,
      body: { current_password: 'first-password-1', new_password: 'short' },
    });
    expect(short.status).toBe(400);

    const changed = await platform.request('PUT', '/me/password', {
      token: here.access_token,
      body: { current_password: 'first-password-1', new_password: 'second-password-2' },
    });
    expect(changed.status).toBe(200);
    expect((await me(here.access_token)).status).toBe(200);
    expect((await me(elsewhere.access_token)).status).toBe(401);
    const refreshed = await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: elsewhere.refresh_token },
    });
    expect(refreshed.status).toBe(401);

    await expect(platform.login(email, 'first-password-1')).rejects.toThrow();
    await expect(platform.login(email, 'second-password-2')).resolves.toMatchObject({
      access_token: expect.any(String),
    });
  });

  it("lets an administrator list a user's sessions and end one or all; not the other way round", async () => {
    const first = await platform.login(email, 'second-password-2');
    const second = await platform.login(email, 'second-password-2');
    const sessions = async () => {
      const res = await platform.request('GET', `/users/${userId}/sessions`, { token: admin });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Array<{ id: string; created_at: string | null }> })
        .data;
    };
    const listed = await sessions();
    expect(listed.length).toBeGreaterThanOrEqual(2);
    expect(listed.every((session) => session.created_at !== null)).toBe(true);

    // The newest is the second login's: ending it leaves the first working.
    const end = (path: string) => platform.request('DELETE', path, { token: admin });
    expect((await end(`/users/${userId}/sessions/${listed[0]!.id}`)).status).toBe(200);
    expect((await me(second.access_token)).status).toBe(401);
    expect((await me(first.access_token)).status).toBe(200);
    expect((await end(`/users/${userId}/sessions/not-a-session`)).status).toBe(404);

    // A user cannot look at the sessions of someone above them.
    const adminId = (
      (await (await platform.request('GET', '/me', { token: admin })).json()) as { id: string }
    ).id;
    const peek = await platform.request('GET', `/users/${adminId}/sessions`, {
      token: first.access_token,
    });
    expect(peek.status).toBe(403);

    expect((await end(`/users/${userId}/sessions`)).status).toBe(200);
    expect((await me(first.access_token)).status).toBe(401);
    expect(await sessions()).toEqual([]);
  });
});
