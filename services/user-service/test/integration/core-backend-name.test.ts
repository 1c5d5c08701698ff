/**
 * After a user is created or updated, the user name is copied to the core backend
 * (`PUT {CORE_BACKEND_URL}/utils/update-user-name/:id`). A recording server stands in for it
 * (the real one receives it in services/core-backend's tests); its first answer is a 503 to
 * prove the retry.
 */
import { waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';
import { startRecordingServer } from './support/recording-server';

describe('user name copy to the core backend', () => {
  let platform: Platform;
  let coreBackend: Awaited<ReturnType<typeof startRecordingServer>>;

  beforeAll(async () => {
    coreBackend = await startRecordingServer((_req, index) => ({
      status: index === 0 ? 503 : 200,
    }));
    platform = await startPlatform({
      CORE_BACKEND_URL: coreBackend.url,
      CORE_BACKEND_TOKEN: 'core-token-3',
    });
    await waitFor(() => platform.allows(ADMIN.username, 'PATCH', '/users/x'), 'admin grants');
  });
  afterAll(async () => {
    await platform?.stop();
    await coreBackend?.close();
  });

  it('sends the new name after an update, retrying a failed call, without delaying the answer', async () => {
    const admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
    const created = await platform.request('POST', '/users', {
      token: admin,
      body: {
        email: 'rename@pelita.test',
        username: 'before-rename',
        full_name: 'Before',
        password: 'rename-pw-123',
        role_id: 2,
      },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // A new user is copied too (the core backend can then add them to workspaces); the recorder
    // fails its first call, so the copy arrives on the second attempt.
    await platform.service.userNameCopy.idle();
    expect(coreBackend.requests).toHaveLength(2);
    expect(JSON.parse(coreBackend.requests[1]!.body)).toEqual({
      username: 'before-rename',
      full_name: 'Before',
    });
    coreBackend.requests.length = 0;

    const updated = await platform.request('PATCH', `/users/${id}`, {
      token: admin,
      body: { username: 'after-rename', full_name: 'After' },
    });
    expect(updated.status).toBe(200);
    await platform.service.userNameCopy.idle();
    expect(coreBackend.requests).toHaveLength(2);
    for (const request of coreBackend.requests) {
      expect(request).toMatchObject({ method: 'PUT', path: `/utils/update-user-name/${id}` });
      expect(request.headers.authorization).toBe('Bearer core-token-3');
      expect(JSON.parse(request.body)).toEqual({ username: 'after-rename', full_name: 'After' });
    }
  });
});
