/**
 * The messaging bridge of a workspace integration: a WhatsApp Business Cloud API endpoint (Meta's
 * Graph API, or a self-hosted bridge speaking it). The core backend asks it about the phone
 * number (`GET {base_url}/{phone_number_id}`) to check an integration, with the workspace's access
 * token, within WHATSAPP_TIMEOUT. The base URL is a workspace manager's: reached only through the
 * SSRF guard (public addresses, or ALLOWED_TARGETS), the address connected to checked.
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

export function createMessagingBridge(options: { timeoutMs: number; targetPolicy: TargetPolicy }) {
  const dispatcher = new Agent({ connect: { lookup: createGuardedLookup(options.targetPolicy) } });

  return {
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
