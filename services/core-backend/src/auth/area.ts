/**
 * The auth area: the user service's public key that verifies access tokens (fetched at start
 * when not configured), and the chat page's sign-in relayed to the user service.
 */
import type { Logger } from '@pelita/kit';
import type { Area } from '../area';
import type { Settings } from '../config';
import { publicKeySource } from './public-key';
import { createSignInRelay } from './sign-in-relay';
import { signInRoutes } from './sign-in-routes';

export function authArea(
  settings: Pick<Settings, 'JWT_PUBLIC_KEY' | 'URL_USER' | 'USER_SERVICE_TIMEOUT_MS'>,
  logger: Logger,
) {
  const publicKey = publicKeySource({
    pem: settings.JWT_PUBLIC_KEY,
    userServiceUrl: settings.URL_USER,
    logger,
  });
  const signIn = createSignInRelay({
    userServiceUrl: settings.URL_USER,
    timeoutMs: settings.USER_SERVICE_TIMEOUT_MS,
  });
  const area: Area = { routes: signInRoutes(signIn) };
  return { area, publicKey };
}
