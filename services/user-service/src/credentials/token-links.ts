/** The links mailed to users: a fresh single-use token, carried to the page that takes it. */
import type { ResetTokenStore } from './reset-token-store';
import { randomToken } from './token-material';

/**
 * Issues a new token for the user in `tokens` (answering `value`, the user by default) and
 * answers the link to `page` (`{frontendUrl}/reset-password`) that carries it.
 */
export async function issueLink(
  tokens: Pick<ResetTokenStore, 'issue'>,
  page: string,
  userId: string,
  value?: string,
): Promise<string> {
  const token = randomToken();
  await tokens.issue(token, userId, value);
  return `${page}?token=${encodeURIComponent(token)}`;
}
