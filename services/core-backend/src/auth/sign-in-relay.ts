/**
 * The user service's `/auth/login`, `/auth/refresh` and `/auth/logout`, relayed for the chat
 * page: the Ingress sends every path to the core backend, and the page calls its own origin.
 * Bodies and answers pass through unchanged (tokens included: the core backend keeps none);
 * the caller's address goes on in `X-Forwarded-For`, so the user service's limits per address
 * still see the visitor when its TRUST_PROXY counts this hop.
 */
import { HttpError } from '@pelita/kit';

export interface SignInRelayOptions {
  /** The user service; unset: every relayed call is 503. */
  userServiceUrl: string | undefined;
  timeoutMs: number;
}

/** What the caller sent that the user service needs to see. */
export interface RelayedCall {
  body?: unknown;
  authorization?: string;
  userAgent?: string;
  forwardedFor: string;
}

/** The user service's answer: its status, its JSON body (none when empty), its Retry-After. */
export interface RelayedAnswer {
  status: number;
  json?: unknown;
  retryAfter?: string;
}

export function createSignInRelay(options: SignInRelayOptions) {
  return async function relay(path: string, call: RelayedCall): Promise<RelayedAnswer> {
    if (!options.userServiceUrl) {
      throw new HttpError(503, 'sign_in_unavailable', 'Logging in is not configured (URL_USER)');
    }
    let answer: Response;
    try {
      answer = await fetch(new URL(path, options.userServiceUrl), {
        method: 'POST',
        headers: {
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(call.authorization ? { authorization: call.authorization } : {}),
          ...(call.userAgent ? { 'user-agent': call.userAgent } : {}),
          'x-forwarded-for': call.forwardedFor,
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'TimeoutError') {
        throw new HttpError(504, 'user_service_timeout', 'The user service did not answer in time');
      }
      throw new HttpError(503, 'user_service_unreachable', 'The user service is unreachable', {
        cause: err,
      });
    }
    const text = await answer.text();
    const retryAfter = answer.headers.get('retry-after') ?? undefined;
    const relayed: RelayedAnswer = { status: answer.status, ...(retryAfter ? { retryAfter } : {}) };
    if (!text) return relayed;
    try {
      return { ...relayed, json: JSON.parse(text) as unknown };
    } catch {
      throw new HttpError(
        502,
        'user_service_error',
        'The user service answered something unreadable',
      );
    }
  };
}

export type SignInRelay = ReturnType<typeof createSignInRelay>;
