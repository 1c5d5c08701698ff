/**
 * The user service's public key, which verifies access tokens: from `JWT_PUBLIC_KEY` when the
 * platform Secret holds it, else fetched at start from the user service's
 * `GET {URL_USER}/auth/public-key` (retried until it answers: the two may start together).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { errorMessage, HttpError, type Logger } from '@pelita/kit';

export interface PublicKeySource {
  /** The key; 503 while it is not known yet. */
  key(): KeyObject;
  /** Fetches the key when it was not configured. */
  load(): Promise<void>;
}

export function publicKeySource(options: {
  pem: string | undefined;
  userServiceUrl: string | undefined;
  logger: Logger;
  retryMs?: number;
  attempts?: number;
}): PublicKeySource {
  let known = options.pem ? createPublicKey(options.pem) : undefined;
  if (!known && !options.userServiceUrl) {
    throw new Error('Set JWT_PUBLIC_KEY, or URL_USER to fetch it from the user service');
  }
  return {
    key() {
      if (!known) {
        throw new HttpError(503, 'starting', 'The user service public key is not known yet');
      }
      return known;
    },
    async load() {
      const { retryMs = 1000, attempts = 300 } = options;
      for (let attempt = 1; !known; attempt++) {
        try {
          const res = await fetch(`${options.userServiceUrl}/auth/public-key`, {
            signal: AbortSignal.timeout(5000),
          });
          if (!res.ok) throw new Error(`the user service answered ${res.status}`);
          const { pem } = (await res.json()) as { pem: string };
          known = createPublicKey(pem);
          options.logger.info('public key fetched from the user service');
        } catch (err) {
          if (attempt >= attempts) throw err;
          if (attempt === 1 || attempt % 30 === 0) {
            options.logger.warn(
              { err: errorMessage(err) },
              'waiting for the user service public key',
            );
          }
          await new Promise((resolve) => setTimeout(resolve, retryMs));
        }
      }
    },
  };
}
