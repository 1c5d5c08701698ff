/**
 * Schemathesis against the license API's `/api-docs.json`: documented answers only, invalid
 * input rejected with a 4xx, no crash. The dashboard's HTML pages (forms behind a session) are
 * left to the browser tests; the blocked upload paths stay in.
 */
import { runSchemathesis } from '@pelita/fuzz';
import { basic, startLicensePlatform, type LicensePlatform } from './support/license-platform';

describe('license API under schemathesis', () => {
  let platform: LicensePlatform;

  beforeAll(async () => {
    platform = await startLicensePlatform();
    await platform.addAccount('fuzz@vendor.test', 'fuzz-password-123', 'license-api');
    await platform.addClient({ name: 'Fuzzed' });
  });
  afterAll(() => platform?.stop());

  it('answers only as documented', async () => {
    const result = await runSchemathesis({
      baseUrl: platform.url,
      headers: { authorization: basic('fuzz@vendor.test', 'fuzz-password-123') },
      excludePathRegex:
        '^/(metrics|api-docs|login|logout|clients|licenses|mappings|admins|roles|activity|infisical-env|save-infisical)|^/$|^/\\*',
      maxExamples: 40,
    });
    if (!result.passed) throw new Error(result.output);
  }, 300_000);
});
