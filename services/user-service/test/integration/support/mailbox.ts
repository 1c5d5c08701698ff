/** Reads the messages the test SMTP receiver (aiosmtpd) stored in `$SMTP_MAILDIR/new/`. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEnv, waitFor } from '@pelita/testenv';

/** Bodies of every stored message addressed to `to`, quoted-printable soft breaks undone. */
export async function messagesTo(to: string): Promise<string[]> {
  const { SMTP_MAILDIR } = requireEnv('SMTP_MAILDIR');
  const dir = join(SMTP_MAILDIR, 'new');
  const files = await readdir(dir).catch(() => [] as string[]);
  const messages = await Promise.all(
    files.map((file) => readFile(join(dir, file), 'utf8').catch(() => '')),
  );
  return messages
    .filter((message) => message.includes(`To: ${to}`))
    .map((message) => message.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
}

/** The tokens of every `{FRONTEND_URL}{path}?token=…` link mailed to `to` so far. */
export async function mailedTokens(to: string, path: string): Promise<string[]> {
  const pattern = new RegExp(`${path}\\?token=([A-Za-z0-9_%-]+)`, 'g');
  return (await messagesTo(to)).flatMap((body) =>
    [...body.matchAll(pattern)].map((match) => decodeURIComponent(match[1]!)),
  );
}

/** Waits for a link to `path` mailed to `to` that is not among `known`; its token. */
export function newMailedToken(to: string, path: string, known: string[] = []): Promise<string> {
  return waitFor(
    async () => (await mailedTokens(to, path)).find((token) => !known.includes(token)),
    `a ${path} link mailed to ${to}`,
  );
}
