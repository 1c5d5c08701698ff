/**
 * The chat-messaging notification of each successful dashboard login (seed: user name, e-mail,
 * IP, time in UTC+7, user agent) through the Telegram Bot API's sendMessage, and of an account
 * locked after too many wrong second-factor codes (someone who knows its password is guessing).
 * Without a bot token nothing is sent; the send runs after the answer and a failure is only
 * logged, so it never delays or stops a login.
 */
import type { Logger } from '@pelita/kit';
import type { LicenseMetrics } from '../metrics';

export interface LoginEvent {
  name: string;
  email: string;
  ip: string;
  userAgent: string;
  at: Date;
}

export interface LoginNotifier {
  notify(event: LoginEvent): void;
  /** The account's dashboard sign-in was locked after `failures` wrong second-factor codes. */
  notifyLock(event: LoginEvent & { failures: number }): void;
  /** Resolves when every send started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
}

/** `2026-11-26 14:05:09 (UTC+7)`: the seed's zone, without depending on the host's time zone. */
export function utcPlus7(at: Date): string {
  const shifted = new Date(at.getTime() + 7 * 3600_000);
  return `${shifted.toISOString().slice(0, 19).replace('T', ' ')} (UTC+7)`;
}

/** Who signed in (or tried to), from where and when: the lines both messages end with. */
const eventLines = (event: LoginEvent): string[] => [
  `Name: ${event.name}`,
  `E-mail: ${event.email}`,
  `IP: ${event.ip}`,
  `Time: ${utcPlus7(event.at)}`,
  `User agent: ${event.userAgent.slice(0, 300)}`,
];

export function loginMessage(event: LoginEvent): string {
  return ['Login to the Pelita license dashboard', ...eventLines(event)].join('\n');
}

export function lockMessage(event: LoginEvent & { failures: number }): string {
  return [
    'Pelita license dashboard: account locked',
    `${event.failures} wrong second-factor codes since its last sign-in; the password is known to whoever typed them.`,
    ...eventLines(event),
  ].join('\n');
}

export function createLoginNotifier(options: {
  apiUrl: string;
  botToken: string | undefined;
  chatId: string | undefined;
  timeoutMs: number;
  logger: Logger;
  metrics: LicenseMetrics;
}): LoginNotifier {
  const pending = new Set<Promise<void>>();
  const { botToken, chatId } = options;
  function send(text: string): void {
    if (!botToken || !chatId) return;
    const sending = (async () => {
      try {
        const res = await fetch(`${options.apiUrl}/bot${botToken}/sendMessage`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chat_id: chatId, text }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        await res.body?.cancel();
        options.metrics.notifications.inc({ outcome: res.ok ? 'sent' : 'failed' });
        if (!res.ok) {
          options.logger.warn({ status: res.status }, 'login notification refused by Telegram');
        }
      } catch (err) {
        options.metrics.notifications.inc({ outcome: 'failed' });
        // The URL holds the bot token: log the kind of failure, never the request.
        options.logger.warn(
          { reason: err instanceof Error ? err.name : 'unknown' },
          'login notification not sent',
        );
      }
    })();
    pending.add(sending);
    void sending.finally(() => pending.delete(sending));
  }

  return {
    notify: (event) => send(loginMessage(event)),
    notifyLock: (event) => send(lockMessage(event)),
    async idle() {
      await Promise.all([...pending]);
    },
  };
}
