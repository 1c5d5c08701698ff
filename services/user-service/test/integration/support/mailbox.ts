/** Reads the messages the test SMTP receiver (aiosmtpd) stored in `$SMTP_MAILDIR/new/`. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';

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
