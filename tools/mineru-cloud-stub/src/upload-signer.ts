/**
 * Presigned upload URLs in object storage's style (`?Expires&OSSAccessKeyId&Signature`): an HMAC
 * over method, path and expiry with a key that lives as long as the double.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const LIFETIME_S = 24 * 3600;

export type UploadCheck = 'ok' | 'bad-signature' | 'expired';

export class UploadSigner {
  private readonly key = randomBytes(32);

  url(origin: string, batchId: string, uploadKey: string, now = Date.now()): string {
    const path = `/oss/api-upload/${batchId}/${uploadKey}`;
    const expires = Math.floor(now / 1000) + LIFETIME_S;
    return `${origin}${path}?Expires=${expires}&OSSAccessKeyId=mineru-cloud-stub&Signature=${this.sign(path, expires)}`;
  }

  check(url: URL, now = Date.now()): UploadCheck {
    const expires = Number(url.searchParams.get('Expires'));
    const given = Buffer.from(url.searchParams.get('Signature') ?? '');
    const expected = Buffer.from(this.sign(url.pathname, expires));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return 'bad-signature';
    }
    return expires * 1000 < now ? 'expired' : 'ok';
  }

  private sign(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`PUT\n${path}\n${expires}`).digest('hex');
  }
}
