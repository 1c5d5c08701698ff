/** Schemathesis against the running service with an administrator's token: documented answers only, no crash. */
import { randomBytes } from 'node:crypto';
import { runSchemathesis } from '@pelita/fuzz';
import { requireEnv, waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const env = requireEnv('OPENSEARCH_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY');
const suffix = randomBytes(4).toString('hex');

describe('user service under schemathesis', () => {
  let platform: Platform;
  beforeAll(async () => {
    // A high limit: the fuzzer's many login attempts must not turn into 429s it did not expect.
    // Every optional part switched on, so every route meets real dependencies.
    platform = await startPlatform({
      LOGIN_MAX_ATTEMPTS: '100000',
      OPENSEARCH_URL: env.OPENSEARCH_URL,
      INDEX_USER_ACTIVITY_LOG: `user-activity-log-fuzz-${suffix}`,
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY: env.S3_ACCESS_KEY,
      S3_SECRET_KEY: env.S3_SECRET_KEY,
      S3_BUCKET: `user-photos-fuzz-${suffix}`,
    });
    await waitFor(
      () => platform.allows(ADMIN.username, 'GET', '/users'),
      'the admin grants in OPA',
    );
  });
  afterAll(async () => {
    await platform?.stop();
    await fetch(`${env.OPENSEARCH_URL}/user-activity-log-fuzz-${suffix}`, { method: 'DELETE' });
  });

  it('answers only as documented', async () => {
    const { access_token } = await platform.login(ADMIN.email, ADMIN.password);
    const result = await runSchemathesis({
      baseUrl: platform.url,
      headers: { authorization: `Bearer ${access_token}` },
      // Logout, and ending a user's sessions (the fuzzer's own user's among them), would end the
      // fuzzer's own session; metrics and docs are not JSON APIs.
      excludePathRegex: '^/(metrics|api-docs|auth/logout|users/[^/]+/sessions)',
      maxExamples: 25,
    });
    if (!result.passed) throw new Error(result.output);
  }, 300_000);
});
