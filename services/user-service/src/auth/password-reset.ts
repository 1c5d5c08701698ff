/**
 * Passwords a user sets: forgot and reset (a single-use link by e-mail, and a reset that ends
 * every session and every other reset link of the user), and changing one's own (the current
 * password required; every other session and every reset link ended). The forgot answer takes the same time whether the
 * account exists or not: the link is made and mailed in the background. Reset mail is limited
 * per account too (the routes limit each client address): requests beyond the limit are
 * answered alike and mail nothing, so rotating addresses cannot flood one mailbox.
 */
import { HttpError, errorMessage, type Logger, type PasswordHasher } from '@pelita/kit';
import type { ResetTokenStore } from '../credentials/reset-token-store';
import type { SessionStore } from '../credentials/session-store';
import { issueLink } from '../credentials/token-links';
import type { Mailer } from '../mail/mailer';
import type { UserRepository } from '../users/user-repository';

export interface PasswordResetDeps {
  users: Pick<UserRepository, 'find' | 'findByEmail' | 'setPassword'>;
  resetTokens: Pick<ResetTokenStore, 'issue' | 'consume' | 'revokeAllOf' | 'mayMail'>;
  sessions: Pick<SessionStore, 'revokeAllOf' | 'revokeAllBut' | 'sessionOf'>;
  mailer: Mailer;
  logger: Logger;
  /** Base of the link mailed: `{frontendUrl}/reset-password?token=…`. */
  frontendUrl: string;
  /** RESET_MAILS_PER_ACCOUNT per RESET_MAIL_WINDOW_SECONDS: reset mails one account may get. */
  mailLimit: { perAccount: number; windowSeconds: number };
  passwords: Pick<PasswordHasher, 'hash' | 'verify'>;
}

export function createPasswordReset(deps: PasswordResetDeps) {
  async function sendLink(user: { id: string; email: string }): Promise<void> {
    const { perAccount, windowSeconds } = deps.mailLimit;
    if (!(await deps.resetTokens.mayMail(user.id, perAccount, windowSeconds))) {
      deps.logger.warn(
        { user_id: user.id },
        'reset e-mail not sent: the account had its limit of reset e-mails in this window',
      );
      return;
    }
    const link = await issueLink(deps.resetTokens, `${deps.frontendUrl}/reset-password`, user.id);
    await deps.mailer.send({
      to: user.email,
      subject: 'Reset your password',
      text: `Someone asked to reset the password of your account.\n\nTo choose a new password, open:\n${link}\n\nIf it was not you, ignore this e-mail.`,
    });
  }

  /** A new password ends the reset links that could set another. */
  async function setPassword(userId: string, password: string): Promise<void> {
    await deps.users.setPassword(userId, await deps.passwords.hash(password));
    await deps.resetTokens.revokeAllOf(userId);
  }

  return {
    /** Mails a reset link when the account exists; the caller's answer is the same either way. */
    async forgotPassword(email: string): Promise<void> {
      const user = await deps.users.findByEmail(email);
      if (!user?.isActive) return;
      // Not awaited: an answer that waited for Redis and SMTP would say the account exists.
      // Failures are logged, never answered, for the same reason.
      void sendLink(user).catch((err: unknown) =>
        deps.logger.error({ err: errorMessage(err) }, 'while sending a reset e-mail'),
      );
    },

    async resetPassword(token: string, password: string): Promise<void> {
      const userId = await deps.resetTokens.consume(token);
      if (!userId) {
        throw new HttpError(
          400,
          'invalid_reset_token',
          'The reset link is invalid, used or expired',
        );
      }
      await setPassword(userId, password);
      await deps.sessions.revokeAllOf(userId);
    },

    /**
     * Changes the caller's own password. The session asking (its access token's `jti`) stays;
     * every other one ends, so a password changed because of a leak shuts the leak out.
     */
    async changeOwn(userId: string, jti: string, current: string, next: string): Promise<void> {
      const user = await deps.users.find(userId);
      if (!user || !(await deps.passwords.verify(current, user.passwordHash))) {
        throw new HttpError(
          403,
          'password_confirmation_required',
          'The current password (current_password) is not right',
        );
      }
      await setPassword(userId, next);
      await deps.sessions.revokeAllBut(userId, await deps.sessions.sessionOf(jti));
    },
  };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
