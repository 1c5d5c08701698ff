/**
 * Who a dashboard request comes from: the live session of its cookie and that session's account,
 * re-read at every request so a deactivation or a role change counts at once. An inactive
 * account, or one whose role no longer allows the dashboard (API-only), ends the session.
 */
import { accountById, type Account } from '../admins/accounts';
import { maySignIn } from '../admins/permissions';
import type { Queryable } from '../store/sql';
import type { Session, SessionStore } from './session-store';

export async function dashboardVisitor(
  db: Queryable,
  sessions: SessionStore,
  cookie: string | undefined,
): Promise<{ session: Session; account: Account } | null> {
  const session = await sessions.find(cookie);
  if (!session) return null;
  const account = await accountById(db, session.adminId);
  if (account?.is_active && maySignIn(account.permissions)) return { session, account };
  await sessions.destroy(session);
  return null;
}
