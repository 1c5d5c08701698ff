/** Presigned upload URLs: only the URL handed out, unchanged and in time, passes. */
import { UploadSigner } from '../../src/upload-signer';

const ORIGIN = 'http://127.0.0.1:9';
const NOW = Date.UTC(2026, 0, 1);

describe('UploadSigner', () => {
  const signer = new UploadSigner();
  const url = new URL(signer.url(ORIGIN, 'batch-1', 'key.pdf', NOW));

  it('hands out an object-storage style URL under /oss/api-upload', () => {
    expect(url.origin).toBe(ORIGIN);
    expect(url.pathname).toBe('/oss/api-upload/batch-1/key.pdf');
    expect(url.searchParams.get('Expires')).toBe(String(NOW / 1000 + 24 * 3600));
    expect(url.searchParams.get('OSSAccessKeyId')).toBe('mineru-cloud-stub');
    expect(url.searchParams.get('Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the URL as handed out, until it expires', () => {
    expect(signer.check(url, NOW)).toBe('ok');
    expect(signer.check(url, NOW + 24 * 3600 * 1000 + 1000)).toBe('expired');
  });

  it('refuses another path, a later expiry, a changed signature, or another signer', () => {
    const otherPath = new URL(url);
    otherPath.pathname = '/oss/api-upload/batch-1/other.pdf';
    const later = new URL(url);
    later.searchParams.set('Expires', String(Number(url.searchParams.get('Expires')) + 3600));
    const changed = new URL(url);
    changed.searchParams.set('Signature', '0'.repeat(64));
    const unsigned = new URL(url);
    unsigned.searchParams.delete('Signature');
    for (const bad of [otherPath, later, changed, unsigned]) {
      expect(signer.check(bad, NOW)).toBe('bad-signature');
    }
    expect(new UploadSigner().check(url, NOW)).toBe('bad-signature');
  });
});
