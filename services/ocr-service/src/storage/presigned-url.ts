/**
 * A presigned GET URL of one object (AWS Signature Version 4, query-string form, as S3 and MinIO
 * verify it; the path must already be encoded as the storage sees it): whoever holds the URL may read that object until it expires, and nothing else; a
 * changed character or an expired URL is refused by the storage (403). Pure: the clock is given.
 */
import { createHash, createHmac } from 'node:crypto';

export interface PresignRequest {
  /**
   * The object's plain URL as clients reach it (`http://minio:9000/bucket/key`,
   * `https://bucket.s3.amazonaws.com/key`, or behind a proxy that keeps the Host header):
   * its host and path are what is signed.
   */
  objectUrl: string;
  region: string;
  accessKey: string;
  secretKey: string;
  expiresSeconds: number;
  now: Date;
}

export function presignGetUrl(request: PresignRequest): string {
  const url = new URL(request.objectUrl);
  const host = url.host;
  const path = url.pathname;
  const amzDate = request.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${request.region}/s3/aws4_request`;
  const params: Array<[string, string]> = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${request.accessKey}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(request.expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  const query = params
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .sort()
    .join('&');
  const canonicalRequest = [
    'GET',
    path,
    query,
    `host:${host}`,
    '',
    'host',
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  let signingKey: Buffer = Buffer.from(`AWS4${request.secretKey}`);
  for (const part of [day, request.region, 's3', 'aws4_request'])
    signingKey = createHmac('sha256', signingKey).update(part).digest();
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `${url.protocol}//${host}${path}?${query}&X-Amz-Signature=${signature}`;
}

/** RFC 3986 encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~` percent-encoded. */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
