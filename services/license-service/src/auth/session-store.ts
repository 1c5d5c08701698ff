/**
 * Dashboard sessions in PostgreSQL. The cookie holds 32 random bytes; the table holds only their
 * SHA-256, so reading the table does not hand out live sessions. A new id is issued at every
 * change of privilege (password passed, second factor passed): an id planted before login never
 * becomes a logged-in session (session fixation). Sessions end after SESSION_IDLE_MINUTES
 * without a request and SESSION_MAX_HOURS after they began.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

export type SessionStage = 'password' | 'full';

export interface Session {
  idHash: string;
  adminId: string;
  stage: SessionStage;
  csrfToken: string;
  pendingTotpSecret: string | null;
  totpFailures: number;
  createdAt: Date;
}

interface SessionRow {
  id_hash: string;
  admin_id: string;
  stage: SessionStage;
  csrf_token: string;
  pending_totp_secret: string | null;
  totp_failures: number;
  created_at: Date;
}

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');
const toSession = (row: SessionRow): Session => ({
  idHash: row.id_hash,
  adminId: row.admin_id,
  stage: row.stage,
  csrfToken: row.csrf_token,
  pendingTotpSecret: row.pending_totp_secret,
  totpFailures: row.totp_failures,
  createdAt: row.created_at,
});

/** A login that has passed the password has this long to pass the second factor. */
const SECOND_FACTOR_MINUTES = 10;

export function createSessionStore(pool: Pool, limits: { idleMinutes: number; maxHours: number }) {
  return {
    /** A new session; returns the cookie value (the only place the raw id exists). */
    async create(
      adminId: string,
      stage: SessionStage,
      pendingTotpSecret: string | null = null,
    ): Promise<string> {
      const id = randomBytes(32).toString('base64url');
      const minutes = stage === 'full' ? limits.maxHours * 60 : SECOND_FACTOR_MINUTES;
      await pool.query(
        `insert into sessions (id_hash, admin_id, stage, csrf_token, pending_totp_secret, expires_at)
         values ($1, $2, $3, $4, $5, now() + make_interval(mins => $6))`,
        [
          hashId(id),
          adminId,
          stage,
          randomBytes(32).toString('base64url'),
          pendingTotpSecret,
          minutes,
        ],
      );
      return id;
    },

    /** The live session of a cookie value, its idle clock restarted; null when none. */
    async find(id: string | undefined): Promise<Session | null> {
      if (!id || id.length > 100) return null;
      const { rows } = await pool.query<SessionRow>(
        `update sessions set last_seen_at = now()
         where id_hash = $1 and expires_at > now()
           and last_seen_at > now() - make_interval(mins => $2)
         returning *`,
        [hashId(id), limits.idleMinutes],
      );
      return rows[0] ? toSession(rows[0]) : null;
    },

    async setPendingTotp(session: Session, secret: string): Promise<void> {
      await pool.query('update sessions set pending_totp_secret = $2 where id_hash = $1', [
        session.idHash,
        secret,
      ]);
    },

    /** Counts a wrong code; returns the failures so far. */
    async countTotpFailure(session: Session): Promise<number> {
      const { rows } = await pool.query<{ totp_failures: number }>(
        'update sessions set totp_failures = totp_failures + 1 where id_hash = $1 returning totp_failures',
        [session.idHash],
      );
      return rows[0]?.totp_failures ?? Number.POSITIVE_INFINITY;
    },

    async destroy(session: Session): Promise<void> {
      await pool.query('delete from sessions where id_hash = $1', [session.idHash]);
    },

    /** Ends every session of an account (password changed, account deactivated or deleted). */
    async destroyAllOf(adminId: string): Promise<void> {
      await pool.query('delete from sessions where admin_id = $1', [adminId]);
    },

    /** Removes expired rows; run now and then, nothing depends on it for correctness. */
    async sweep(): Promise<void> {
      await pool.query(
        `delete from sessions where expires_at <= now()
           or last_seen_at <= now() - make_interval(mins => $1)`,
        [limits.idleMinutes],
      );
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
