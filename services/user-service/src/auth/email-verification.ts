/**
 * E-mail verification of self-registered accounts: a single-use link mailed at registration
 * (and again on request), valid `EMAIL_VERIFICATION_TTL_SECONDS`. Following it marks the
 * address verified — only then may the account log in, does it take a license seat (checked
 * here, under the seat lock) and reach OPA's data. Resending answers the same whether or not
 * such an account exists, and mails in the background, so neither its answer nor its time
 * says who registered. The same link confirms a user's new e-mail address (`users/email-change.ts`):
 * one page and one endpoint follow both kinds.
 */
import { HttpError, errorMessage, type Logger } from '@pelita/kit';
import type { ResetTokenStore } from '../credentials/reset-token-store';
import { issueLink } from '../credentials/token-links';
import type { LicenseCheck } from '../license/license-check';
import type { Mailer } from '../mail/mailer';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import type { EmailChange } from '../users/email-change';
import type { UserRepository } from '../users/user-repository';

export interface EmailVerificationDeps {
  users: Pick<
    UserRepository,
    'find' | 'findByEmail' | 'markVerified' | 'countActive' | 'withSeatLock'
  >;
  /** The verification links (`verify:email` tokens in Redis, hashed). */
  tokens: ResetTokenStore;
  license: Pick<LicenseCheck, 'assertLicensed'>;
  roleData: RoleDataChanges;
  mailer: Mailer;
  logger: Logger;
  /** Base of the link mailed: `{frontendUrl}/verify-email?token=…`. */
  frontendUrl: string;
  /** VERIFICATION_RESEND_SECONDS: at most one link per account this often (0: no limit). */
  resendSeconds: number;
  /** Links confirming a user's new address, followed through the same endpoint. */
  emailChange: Pick<EmailChange, 'confirm'>;
}

const invalidLink = () =>
  new HttpError(
    400,
    'invalid_verification_token',
    'The verification link is invalid, used or expired; ask for a new one',
  );

export function createEmailVerification(deps: EmailVerificationDeps) {
  async function sendLink(user: { id: string; email: string }): Promise<void> {
    // A new link ends the older ones: only the last one mailed works.
    await deps.tokens.revokeAllOf(user.id);
    const link = await issueLink(deps.tokens, `${deps.frontendUrl}/verify-email`, user.id);
    await deps.mailer.send({
      to: user.email,
      subject: 'Confirm your e-mail address',
      text: `An account was registered with this e-mail address.\n\nTo confirm it is yours and start using the account, open:\n${link}\n\nIf it was not you, ignore this e-mail: the account stays unusable.`,
    });
  }
  const inBackground = (user: { id: string; email: string }) =>
    void (async () => {
      // Quietly skipped within the interval: the answer must not say whether mail went out.
      if (await deps.tokens.mayMail(user.id, 1, deps.resendSeconds)) await sendLink(user);
    })().catch((err: unknown) =>
      deps.logger.error({ err: errorMessage(err) }, 'while sending a verification e-mail'),
    );

  return {
    /** Mails the first link of a new account (in the background: registering never waits on SMTP). */
    sendFirstLink: inBackground,

    /** Mails a new link when an unverified, active account has this address; silent otherwise. */
    async resend(email: string): Promise<void> {
      const user = await deps.users.findByEmail(email);
      if (!user || user.emailVerified || !user.isActive) return;
      inBackground(user);
    },

    /**
     * Follows a link: the account is verified and takes its seat, or nothing changes; or, for a
     * link confirming a new address, the account takes that address.
     */
    async verify(token: string): Promise<void> {
      const userId = await deps.tokens.peek(token);
      if (!userId && (await deps.emailChange.confirm(token))) return;
      const user = userId ? await deps.users.find(userId) : undefined;
      if (!user) throw invalidLink();
      if (!user.emailVerified) {
        // The seat is taken now, not at registration: checked and taken under the seat lock.
        await deps.users.withSeatLock(async () => {
          await deps.license.assertLicensed({
            addingUser: true,
            activeUsers: () => deps.users.countActive(),
          });
          await deps.roleData.apply(['role-users'], (db) => deps.users.markVerified(user.id, db));
        });
      }
      // Used up only once it worked: a refusal (no seat free) leaves the link for a later try.
      await deps.tokens.consume(token);
      await deps.tokens.revokeAllOf(user.id);
    },
  };
}

export type EmailVerification = ReturnType<typeof createEmailVerification>;
