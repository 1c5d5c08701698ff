/** Forgot and reset password with fakes of the user repository, token store, sessions and mailer. */
import { createPasswordReset } from '../../../src/auth/password-reset';
import { testPasswords } from '@pelita/kit/testing';
import type { Mail } from '../../../src/mail/mailer';
import { capturedLogger, fakeSessions, fakeUsers, user } from './fakes';

const passwords = testPasswords();

function setup(options: { mailFails?: boolean; perAccount?: number } = {}) {
  const users = fakeUsers(user(), user({ id: 'u-2', email: 'off@pelita.test', isActive: false }));
  const tokens = new Map<string, string>();
  const mailed = new Map<string, number>();
  const sessions = fakeSessions();
  const sent: Mail[] = [];
  const { logger, lines } = capturedLogger();
  const passwordReset = createPasswordReset({
    users,
    resetTokens: {
      issue: (token, userId) => {
        tokens.set(token, userId);
        return Promise.resolve();
      },
      consume: (token) => {
        const userId = tokens.get(token) ?? null;
        tokens.delete(token);
        return Promise.resolve(userId);
      },
      revokeAllOf: (userId) => {
        for (const [token, owner] of tokens) if (owner === userId) tokens.delete(token);
        return Promise.resolve();
      },
      mayMail: (userId, limit) => {
        mailed.set(userId, (mailed.get(userId) ?? 0) + 1);
        return Promise.resolve(limit === 0 || mailed.get(userId)! <= limit);
      },
    },
    sessions,
    mailer: {
      configured: true,
      send: (mail) => {
        if (options.mailFails) return Promise.reject(new Error('SMTP 554 rejected'));
        sent.push(mail);
        return Promise.resolve();
      },
    },
    logger,
    frontendUrl: 'https://app.pelita.test',
    mailLimit: { perAccount: options.perAccount ?? 3, windowSeconds: 3600 },
    passwords,
  });
  const tokenOf = (mail: Mail) =>
    decodeURIComponent(/reset-password\?token=(\S+)/.exec(mail.text)?.[1] ?? '');
  return { passwordReset, users, tokens, sessions, sent, lines, tokenOf };
}

/** The link is made and mailed in the background: let it run. */
const background = () => new Promise((resolve) => setImmediate(resolve));

describe('password reset', () => {
  it('mails a link whose token sets the new password once and ends every session', async () => {
    const { passwordReset, users, sessions, sent, tokenOf } = setup();
    await sessions.create('s-1', 'u-1', 'j-1', 'h');
    await passwordReset.forgotPassword('ADA@pelita.test');
    await passwordReset.forgotPassword('ada@pelita.test');
    await background();
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ to: 'ada@pelita.test', subject: 'Reset your password' });
    expect(sent[0]!.text).toContain('https://app.pelita.test/reset-password?token=');

    const token = tokenOf(sent[0]!);
    await passwordReset.resetPassword(token, 'fresh-pw-1234');
    expect(await passwords.verify('fresh-pw-1234', users.byId.get('u-1')!.passwordHash)).toBe(true);
    expect(sessions.live.size).toBe(0);
    await expect(passwordReset.resetPassword(token, 'again-pw-1234')).rejects.toMatchObject({
      status: 400,
      code: 'invalid_reset_token',
    });
    // The other link mailed before the reset ended with it.
    await expect(
      passwordReset.resetPassword(tokenOf(sent[1]!), 'x-pw-12345'),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('issues nothing for an unknown or deactivated account (the caller cannot tell)', async () => {
    const { passwordReset, tokens, sent } = setup();
    await expect(passwordReset.forgotPassword('nobody@pelita.test')).resolves.toBeUndefined();
    await expect(passwordReset.forgotPassword('off@pelita.test')).resolves.toBeUndefined();
    await background();
    expect(tokens.size).toBe(0);
    expect(sent).toEqual([]);
  });

  it('mails an account at most its limit of reset links, answering every request alike', async () => {
    const { passwordReset, tokens, sent } = setup({ perAccount: 2 });
    for (let i = 0; i < 4; i += 1) {
      await expect(passwordReset.forgotPassword('ada@pelita.test')).resolves.toBeUndefined();
    }
    await background();
    expect(sent).toHaveLength(2);
    expect(tokens.size).toBe(2);
  });

  it('logs a failed e-mail without the token and answers as if it was sent', async () => {
    const { passwordReset, tokens, lines } = setup({ mailFails: true });
    await expect(passwordReset.forgotPassword('ada@pelita.test')).resolves.toBeUndefined();
    await background();
    const [token] = [...tokens.keys()];
    const logged = lines.join('\n');
    expect(logged).toContain('while sending a reset e-mail');
    expect(logged).toContain('SMTP 554 rejected');
    expect(logged).not.toContain(token!);
  });
});
