/**
 * Downloads a user-given URL to a file under the SSRF rules: http(s) only, every hop (redirects
 * are followed here, one by one) connects only to addresses the target policy allows — checked
 * by the guarded lookup on the address actually connected to — and the whole download has a
 * time limit and a size cap. A partial file never stays behind, and no message quotes a
 * credential of the URL.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorMessage } from './error-message';
import { redactString } from './redact';
import type { AllowedTargets } from './target-policy/allowed-targets';
import { createGuardedLookup } from './target-policy/guarded-lookup';
import { TargetForbiddenError } from './target-policy/target-forbidden-error';
import { createTargetPolicy } from './target-policy/target-policy';

export interface DownloadOptions {
  /** Time limit of the whole download, redirects included. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Addresses reachable although not public. */
  allowed: AllowedTargets;
  signal?: AbortSignal;
}

export interface DownloadResult {
  bytes: number;
  contentType: string | undefined;
  /** The URL the file came from, after redirects (without credentials). */
  finalUrl: string;
  /** From Content-Disposition, else the URL path's last segment; a name, never a path. */
  fileName: string;
}

export type DownloadFailure =
  'forbidden' | 'timeout' | 'too_large' | 'status' | 'network' | 'scheme';

export class DownloadError extends Error {
  constructor(
    readonly reason: DownloadFailure,
    message: string,
    /** The answer's status, for `status`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** `url` without user and password, for messages. */
function shown(url: URL): string {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy.toString();
}

/** A file name from a header value or a path segment: no directories, no control characters. */
function cleanFileName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // not percent-encoded: keep it
  }
  const printable = [...(name.split(/[/\\]/).pop() ?? '')].filter(
    (char) => char >= ' ' && char !== '\x7f',
  );
  name = printable.join('').trim();
  return name === '' || name === '.' || name === '..' ? undefined : name.slice(-200);
}

function nameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) return cleanFileName(extended[1]);
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header);
  return cleanFileName(plain?.[1]);
}

export async function downloadToFile(
  url: string,
  dest: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const policy = createTargetPolicy(options.allowed);
  const lookup = createGuardedLookup(policy);
  const maxRedirects = options.maxRedirects ?? 5;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new DownloadError('scheme', 'the URL is not valid');
  }

  try {
    for (let hop = 0; ; hop += 1) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:')
        throw new DownloadError(
          'scheme',
          `only http and https URLs are downloaded: ${shown(current)}`,
        );
      policy.checkUrl(current);
      const response = await get(current, lookup, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        if (hop >= maxRedirects)
          throw new DownloadError(
            'network',
            `more than ${maxRedirects} redirects from ${shown(current)}`,
          );
        current = new URL(location, current);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new DownloadError('status', `${shown(current)} answered ${status}`, status);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw tooLarge(options.maxBytes);
      }
      const bytes = await save(response, dest, options.maxBytes, signal);
      return {
        bytes,
        contentType: response.headers['content-type'],
        finalUrl: shown(current),
        fileName:
          nameFromDisposition(response.headers['content-disposition']) ??
          cleanFileName(current.pathname.split('/').pop()) ??
          'download',
      };
    }
  } catch (err) {
    await rm(dest, { force: true });
    throw toDownloadError(err, timeout, current);
  }
}

function tooLarge(maxBytes: number): DownloadError {
  return new DownloadError('too_large', `the file is larger than ${maxBytes} bytes`);
}

function get(url: URL, lookup: ReturnType<typeof createGuardedLookup>, signal: AbortSignal) {
  const send = url.protocol === 'https:' ? https.get : http.get;
  return new Promise<IncomingMessage>((resolve, reject) => {
    // No agent: a fresh socket per hop, resolved through the guarded lookup.
    const req = send(url, { lookup, signal, agent: false }, resolve);
    req.on('error', reject);
  });
}

async function save(
  response: IncomingMessage,
  dest: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<number> {
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  await pipeline(response, cap, createWriteStream(dest), { signal });
  return bytes;
}

function toDownloadError(err: unknown, timeout: AbortSignal, url: URL): DownloadError {
  if (err instanceof DownloadError) return err;
  if (err instanceof TargetForbiddenError) return new DownloadError('forbidden', err.message);
  if (timeout.aborted) return new DownloadError('timeout', `${shown(url)} did not answer in time`);
  // A caller's abort passes through as it is.
  if ((err as Error).name === 'AbortError') throw err;
  return new DownloadError(
    'network',
    `${shown(url)} could not be reached: ${redactString(errorMessage(err))}`,
  );
}
