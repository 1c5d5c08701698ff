/**
 * The ES256 key pair that signs access tokens: from settings, or — only when development mode
 * allows it — ephemeral, with a loud warning.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import type { Logger } from '@pelita/kit';

export interface SigningKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as PEM (SPKI) and as a JWK, for `GET /auth/public-key`. */
  publicPem: string;
  publicJwk: Record<string, unknown>;
}

export function loadSigningKeys(
  privatePem: string | undefined,
  publicPem: string | undefined,
  logger: Logger,
  allowEphemeral = false,
): SigningKeys {
  let privateKey: KeyObject;
  if (privatePem) {
    privateKey = createPrivateKey(privatePem);
  } else if (!allowEphemeral) {
    throw new Error('JWT_PRIVATE_KEY is not set (ALLOW_EPHEMERAL_SIGNING_KEY is off)');
  } else {
    logger.warn(
      'JWT_PRIVATE_KEY is not set: signing with an EPHEMERAL key pair. Every token dies with this ' +
        'process and replicas reject each other’s tokens (ALLOW_EPHEMERAL_SIGNING_KEY, for development only).',
    );
    privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  }
  if (
    privateKey.asymmetricKeyType !== 'ec' ||
    privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
  ) {
    throw new Error('JWT_PRIVATE_KEY must be an EC P-256 key (ES256)');
  }
  const publicKey = publicPem ? createPublicKey(publicPem) : createPublicKey(privateKey);
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk: { ...publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' },
  };
}
