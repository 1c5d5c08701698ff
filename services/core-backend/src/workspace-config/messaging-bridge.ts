/**
 * The messaging bridge of a workspace integration: a WhatsApp Business Cloud API endpoint (Meta's
 * Graph API, or a self-hosted bridge speaking it). The core backend asks it about the phone
 * number (`GET {base_url}/{phone_number_id}`) to check an integration, and sends replies
 * (`POST {base_url}/{phone_number_id}/messages`), with the workspace's access token, within
 * WHATSAPP_TIMEOUT. The base URL is a workspace manager's: reached only through the SSRF guard
 * (public addresses, or ALLOWED_TARGETS), the address connected to checked.
 * The bridge's own refusals are 502s: they must never read as the caller's 401 or 403.
 */
import {
  createGuardedLookup,
  HttpError,
  TargetForbiddenError,
  type TargetPolicy,
} from '@pelita/kit';
import { Agent, fetch } from 'undici';

export interface BridgePhone {
  display_phone_number: string | null;
  verified_name: string | null;
}

/** A reply the bridge did not take; `retryAfterMs` set when another try may pass. */
export class SendFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | 'backoff' | undefined,
  ) {
    super(message);
    this.name = 'SendFailure';
  }
}

/** The Cloud API's longest text body. */
const MAX_TEXT = 4096;

export function createMessagingBridge(options: { timeoutMs: number; targetPolicy: TargetPolicy }) {
  const dispatcher = new Agent({ connect: { lookup: createGuardedLookup(options.targetPolicy) } });

  return {
    /**
     * Sends a text to a WhatsApp user, as a reply to their message; the Cloud API's id of the
     * sent message. Throws a {@link SendFailure}: 5xx, 408, a time-out or no connection may pass
     * (`backoff`), a 429 names its Retry-After, any other refusal (bad token, unknown number)
     * will not.
     */
    async sendText(
      baseUrl: string,
      phoneNumberId: string,
      accessToken: string,
      message: { to: string; text: string; replyTo: string },
      signal?: AbortSignal,
    ): Promise<string> {
      const url = new URL(`${baseUrl}/${encodeURIComponent(phoneNumberId)}/messages`);
      let res;
      try {
        options.targetPolicy.checkUrl(url);
        res = await fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${accessToken}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify({
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: message.to,
            context: { message_id: message.replyTo },
            type: 'text',
            text: { preview_url: false, body: message.text.slice(0, MAX_TEXT) },
          }),
          dispatcher,
          redirect: 'manual',
          signal: withTimeout(options.timeoutMs, signal),
        });
      } catch (err) {
        const failure = bridgeFailure(err, options.timeoutMs);
        const permanent = failure instanceof TargetForbiddenError;
        throw new SendFailure(failure.message, permanent ? undefined : 'backoff');
      }
      const text = await res.text();
      if (!res.ok) {
        const why = `The messaging bridge answered ${res.status}: ${bridgeMessage(text)}`;
        if (res.status === 429) throw new SendFailure(why, retryAfterMs(res.headers) ?? 'backoff');
        const passing = res.status >= 500 || res.status === 408;
        throw new SendFailure(why, passing ? 'backoff' : undefined);
      }
      try {
        const body = JSON.parse(text) as { messages?: Array<{ id?: unknown }> };
        const id = body.messages?.[0]?.id;
        if (typeof id === 'string') return id;
      } catch {
        // answered below
      }
      // Taken (2xx) but without the id: sent, as far as anyone can tell; never sent again.
      return '';
    },

    async phoneNumber(
      baseUrl: string,
      phoneNumberId: string,
      accessToken: string,
    ): Promise<BridgePhone> {
      const url = new URL(
        `${baseUrl}/${encodeURIComponent(phoneNumberId)}?fields=display_phone_number,verified_name`,
      );
      // An IP literal connects without a lookup: checked here.
      options.targetPolicy.checkUrl(url);
      let res;
      try {
        res = await fetch(url, {
          headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          dispatcher,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        throw bridgeFailure(err, options.timeoutMs);
      }
      const text = await res.text();
      if (!res.ok) {
        throw new HttpError(
          502,
          'bridge_error',
          `The messaging bridge answered ${res.status}: ${bridgeMessage(text)}`,
        );
      }
      let body: Partial<BridgePhone>;
      try {
        body = JSON.parse(text) as Partial<BridgePhone>;
      } catch {
        throw new HttpError(502, 'bridge_error', 'The messaging bridge answered no JSON');
      }
      return {
        display_phone_number: stringOrNull(body.display_phone_number),
        verified_name: stringOrNull(body.verified_name),
      };
    },
  };
}

export type MessagingBridge = ReturnType<typeof createMessagingBridge>;

const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

/** WHATSAPP_TIMEOUT, ended sooner by `signal` (a stopping worker) when given. */
const withTimeout = (timeoutMs: number, signal: AbortSignal | undefined) =>
  signal
    ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal])
    : AbortSignal.timeout(timeoutMs);

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The Graph API's `{error: {message}}`, or the start of whatever came. */
function bridgeMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.slice(0, 300) || 'no body';
}

function bridgeFailure(err: unknown, timeoutMs: number): HttpError {
  // By name, not class: the abort's DOMException may come from another realm.
  for (let e: unknown = err; typeof e === 'object' && e !== null; e = (e as Error).cause) {
    if (e instanceof TargetForbiddenError) return e;
    if ((e as Error).name === 'TimeoutError') {
      return new HttpError(
        504,
        'bridge_timeout',
        `The messaging bridge gave no answer in ${timeoutMs} ms`,
      );
    }
  }
  return new HttpError(503, 'bridge_unreachable', 'The messaging bridge could not be reached');
}
