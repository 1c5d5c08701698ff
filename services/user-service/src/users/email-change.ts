/**
 * A user's own new e-mail address takes effect once its owner proves they read it: the link
 * mailed there is a verification link like a registration's (`{frontendUrl}/verify-email?token=…`,
 * followed through `POST /auth/verify-email`, valid `EMAIL_VERIFICATION_TTL_SECONDS`, single use,
 * a new request ends the older links). Until then the account keeps its old address — for
 * logging in and for reset links — so a mistyped address locks nobody out and an address
 * nobody controls never becomes the account's. The old address is told once the change is made.
 */
import { HttpError, conflict, errorMessage, type Logger } from '@pelita/kit';
import type { ResetTokenStore } from '../credentials/reset-token-store';
import { issueLink } from '../credentials/token-links';
import { isUniqueViolation } from '../db/unique-violation';
import type { Mailer } from '../mail/mailer';
import type { UserRepository } from './user-repository';

export interface EmailChangeDeps {
  users: Pick<UserRepository, 'find' | 'findByEmail' | 'update'>;
  /** Links of e-mail changes (`verify:email-change` in Redis), each holding the new address. */
  tokens: Pick<ResetTokenStore, 'issue' | 'consume' | 'revokeAllOf' | 'mayMail'>;
  /** Password-reset links: they went to the old address, so a change of address ends them. */
  resetLinks: Pick<ResetTokenStore, 'revokeAllOf'>;
  mailer: Mailer;
  logger: Logger;
  frontendUrl: string;
  /** VERIFICATION_RESEND_SECONDS: at most one link per account this often (0: no limit). */
  resendSeconds: number;
}

interface PendingChange {
  userId: string;
  email: string;
}

const alreadyUsed = () => conflict('E-mail or username is already in use');

function pendingChangeOf(stored: string | null): PendingChange | undefined {
  if (!stored) return undefined;
  const value = JSON.parse(stored) as Partial<PendingChange>;
  return typeof value.userId === 'string' && typeof value.email === 'string'
    ? { userId: value.userId, email: value.email }
    : undefined;
}

export function createEmailChange(deps: EmailChangeDeps) {
  /**
   * After an account's address changed (its owner followed the link, or an administrator set
   * it): reset links mailed to the old address end — whoever still reads that mailbox must not
   * take the account back — and the old address is told, in the background (the change is made
   * whether or not the mail goes out).
   */
  async function addressChanged(userId: string, oldEmail: string, newEmail: string) {
    await deps.resetLinks.revokeAllOf(userId);
    deps.mailer
      .send({
        to: oldEmail,
        subject: 'The e-mail address of your account was changed',
        text: `The e-mail address of your Pelita account was changed to ${newEmail}.\n\nIf you did not ask for this, contact your administrator at once.`,
      })
      .catch((err: unknown) =>
        deps.logger.error({ err: errorMessage(err) }, 'while telling the old address of a change'),
      );
  }

  return {
    addressChanged,

    /**
     * Mails a confirmation link to `newEmail`; the account's address stays as it is until the
     * link is followed. 409 when another account holds the address, 429 within the resend
     * interval, 503 when no e-mail can be sent.
     */
    async request(user: { id: string }, newEmail: string): Promise<void> {
      const holder = await deps.users.findByEmail(newEmail);
      if (holder && holder.id !== user.id) throw alreadyUsed();
      if (!deps.mailer.configured) {
        throw new HttpError(
          503,
          'mail_unavailable',
          'E-mail is not configured here: a new address cannot be confirmed',
        );
      }
      if (!(await deps.tokens.mayMail(user.id, 1, deps.resendSeconds))) {
        throw new HttpError(
          429,
          'too_many_requests',
          `A confirmation link went out less than ${deps.resendSeconds} s ago; try again later`,
        );
      }
      // A new request ends the older links: only the last address asked for can be confirmed.
      await deps.tokens.revokeAllOf(user.id);
      const pending: PendingChange = { userId: user.id, email: newEmail };
      const link = await issueLink(
        deps.tokens,
        `${deps.frontendUrl}/verify-email`,
        user.id,
        JSON.stringify(pending),
      );
      try {
        await deps.mailer.send({
          to: newEmail,
          subject: 'Confirm your new e-mail address',
          text: `You asked to use this e-mail address for your Pelita account.\n\nTo confirm it, open:\n${link}\n\nUntil then your account keeps its current address. If it was not you, ignore this e-mail.`,
        });
      } catch (err) {
        await deps.tokens.revokeAllOf(user.id);
        throw new HttpError(503, 'mail_unavailable', 'The confirmation e-mail could not be sent', {
          cause: err,
        });
      }
    },

    /**
     * Follows an e-mail change link: the account takes the new address. False when the token is
     * not such a link (unknown, used, expired); 409 when the address was taken meanwhile.
     */
    async confirm(token: string): Promise<boolean> {
      // Used up at once (GETDEL): two clicks cannot both apply it.
      const pending = pendingChangeOf(await deps.tokens.consume(token));
      const user = pending && (await deps.users.find(pending.userId));
      if (!pending || !user?.isActive) return false;
      await deps.tokens.revokeAllOf(user.id);
      if (user.email === pending.email) return true;
      await deps.users.update(user.id, { email: pending.email }).catch((err: unknown) => {
        throw isUniqueViolation(err) ? alreadyUsed() : err;
      });
      await addressChanged(user.id, user.email, pending.email);
      return true;
    },
  };
}

export type EmailChange = ReturnType<typeof createEmailChange>;
