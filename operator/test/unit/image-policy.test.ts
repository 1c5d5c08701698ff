import { disallowedImages, fullyQualified, installImages } from '../../src/render/image-policy';
import { makeInstall } from './fixtures';

describe('the registry allowlist', () => {
  it('lists every image of the enabled services and the OPA sidecar once', () => {
    const images = installImages(makeInstall({ image: { registry: 'r.local/p' } }));
    expect(images).toEqual([
      'r.local/p/http-proxy:1.2.3',
      'r.local/p/db-proxy:1.2.3',
      'r.local/p/user-service:1.2.3',
      'r.local/p/policy-sync:1.2.3',
      expect.stringMatching(/^openpolicyagent\/opa:/),
      'r.local/p/core-backend:1.2.3',
      // Once, though the API and the worker both run it.
      'r.local/p/ocr-service:1.2.3',
      'r.local/p/office-converter:1.2.3',
      'r.local/p/ocr-engine:1.2.3',
      'r.local/p/summarizer:1.2.3',
    ]);
  });

  it('qualifies Docker Hub names the way a runtime does', () => {
    expect(fullyQualified('openpolicyagent/opa:1')).toBe('docker.io/openpolicyagent/opa:1');
    expect(fullyQualified('busybox')).toBe('docker.io/library/busybox');
    expect(fullyQualified('localhost:5000/x/y:1')).toBe('localhost:5000/x/y:1');
    expect(fullyQualified('ghcr.io/pelita/summarizer:1')).toBe('ghcr.io/pelita/summarizer:1');
  });

  it('allows anything without an allowlist', () => {
    expect(disallowedImages(makeInstall({ image: { registry: 'evil.example/x' } }), [])).toEqual(
      [],
    );
  });

  it('refuses images outside the allowed prefixes, by whole path segments', () => {
    const allowed = ['ghcr.io/pelita', 'openpolicyagent'];
    expect(disallowedImages(makeInstall(), allowed)).toEqual([]);
    const elsewhere = makeInstall({
      image: { registry: 'ghcr.io/pelita-fork', opaImage: 'evil.example/opa:1' },
    });
    expect(disallowedImages(elsewhere, allowed)).toEqual([
      'ghcr.io/pelita-fork/http-proxy:1.2.3',
      'ghcr.io/pelita-fork/db-proxy:1.2.3',
      'ghcr.io/pelita-fork/user-service:1.2.3',
      'ghcr.io/pelita-fork/policy-sync:1.2.3',
      'evil.example/opa:1',
      'ghcr.io/pelita-fork/core-backend:1.2.3',
      'ghcr.io/pelita-fork/ocr-service:1.2.3',
      'ghcr.io/pelita-fork/office-converter:1.2.3',
      'ghcr.io/pelita-fork/ocr-engine:1.2.3',
      'ghcr.io/pelita-fork/summarizer:1.2.3',
    ]);
    // A whole host is a prefix too.
    expect(disallowedImages(elsewhere, ['ghcr.io', 'docker.io/evil.example'])).toEqual([
      'evil.example/opa:1',
    ]);
  });
});
