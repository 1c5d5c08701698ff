/**
 * SQL of users; every read joins the user's role (name and level decide what they may manage)
 * and names its columns as the {@link User} fields, so rows need no mapping.
 */
import type { Pool } from 'pg';
import { inTransaction, type Db } from '@pelita/kit';

/** A user as the service handles it inside: camelCase (the API's snake_case is mapped in `schemas/users.ts`). */
export interface User {
  id: string;
  email: string;
  username: string;
  fullName: string;
  passwordHash: string;
  isActive: boolean;
  /** False for a self-registered account whose owner has not followed the mailed link yet. */
  emailVerified: boolean;
  roleId: number;
  roleName: string;
  roleLevel: number;
  photoKey: string | null;
  photoType: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A user to create, with the password in clear (hashed by the domain module). */
export interface NewUserInput {
  email: string;
  username: string;
  fullName: string;
  password: string;
  roleId: number;
}

export interface NewUser {
  email: string;
  username: string;
  fullName: string;
  passwordHash: string;
  roleId: number;
  /** Unset: verified (an administrator vouches for the accounts they make). */
  emailVerified?: boolean;
}

export interface UserChanges {
  email?: string | undefined;
  username?: string | undefined;
  fullName?: string | undefined;
  roleId?: number | undefined;
  isActive?: boolean | undefined;
}

const SELECT = `
  select u.id, u.email, u.username, u.full_name as "fullName", u.password_hash as "passwordHash",
         u.is_active as "isActive", u.email_verified as "emailVerified",
         u.role_id as "roleId", r.name as "roleName",
         r.level as "roleLevel", u.photo_key as "photoKey", u.photo_type as "photoType",
         u.created_at as "createdAt", u.updated_at as "updatedAt"
  from users u join roles r on r.id = u.role_id`;

/** Advisory lock key of the user seats (any constant the service's other locks do not use). */
const SEAT_LOCK = 0x5e47_0001;

export function createUserRepository(pool: Pool) {
  return {
    async list(page: number, limit: number): Promise<{ rows: User[]; total: number }> {
      const [{ rows }, count] = await Promise.all([
        pool.query<User>(`${SELECT} order by u.created_at, u.id limit $1 offset $2`, [
          limit,
          (page - 1) * limit,
        ]),
        pool.query<{ n: string }>('select count(*) as n from users'),
      ]);
      return { rows, total: Number(count.rows[0]?.n ?? 0) };
    },
    async find(id: string): Promise<User | undefined> {
      return (await pool.query<User>(`${SELECT} where u.id = $1`, [id])).rows[0];
    },
    async findByEmail(email: string): Promise<User | undefined> {
      return (await pool.query<User>(`${SELECT} where lower(u.email) = lower($1)`, [email]))
        .rows[0];
    },
    /**
     * Runs `work` holding the one lock every seat-taking change takes (create, register,
     * reactivate): counting the active users and adding one cannot interleave with another
     * such change, so two at once cannot both slip under `max_user`.
     */
    async withSeatLock<T>(work: () => Promise<T>): Promise<T> {
      // Held by a transaction of its own until `work` (which commits on other connections) is
      // done: a transaction-scoped lock also holds through PgBouncer in transaction mode, where a
      // session lock and its unlock could reach different server connections.
      return inTransaction(pool, async (client) => {
        await client.query('select pg_advisory_xact_lock($1)', [SEAT_LOCK]);
        return work();
      });
    },
    /** The users taking a license seat: active, and verified when they registered themselves. */
    async countActive(db: Db = pool): Promise<number> {
      const { rows } = await db.query<{ n: string }>(
        'select count(*) as n from users where is_active and email_verified',
      );
      return Number(rows[0]?.n ?? 0);
    },
    async insert(user: NewUser, db: Db = pool): Promise<string> {
      const { rows } = await db.query<{ id: string }>(
        `insert into users (email, username, full_name, password_hash, role_id, email_verified)
         values ($1, $2, $3, $4, $5, $6) returning id`,
        [
          user.email,
          user.username,
          user.fullName,
          user.passwordHash,
          user.roleId,
          user.emailVerified ?? true,
        ],
      );
      return rows[0]!.id;
    },
    async update(id: string, changes: UserChanges, db: Db = pool): Promise<boolean> {
      const { rowCount } = await db.query(
        `update users set
           email = coalesce($2, email), username = coalesce($3, username),
           full_name = coalesce($4, full_name), role_id = coalesce($5, role_id),
           is_active = coalesce($6, is_active), updated_at = now()
         where id = $1`,
        [
          id,
          changes.email ?? null,
          changes.username ?? null,
          changes.fullName ?? null,
          changes.roleId ?? null,
          changes.isActive ?? null,
        ],
      );
      return (rowCount ?? 0) > 0;
    },
    /**
     * Deletes self-registered accounts never verified whose link has expired (made more than
     * `olderThanSeconds` ago) holding this e-mail or username: nobody can use them any more, and
     * left in place they would keep the address's owner from registering.
     */
    async removeStaleUnverified(
      email: string,
      username: string,
      olderThanSeconds: number,
      db: Db = pool,
    ): Promise<number> {
      const { rowCount } = await db.query(
        `delete from users
         where not email_verified
           and created_at < now() - make_interval(secs => $3)
           and (lower(email) = lower($1) or username = $2)`,
        [email, username, olderThanSeconds],
      );
      return rowCount ?? 0;
    },
    /** Marks the address verified; false when it already was (or the user is gone). */
    async markVerified(id: string, db: Db = pool): Promise<boolean> {
      const { rowCount } = await db.query(
        'update users set email_verified = true, updated_at = now() where id = $1 and not email_verified',
        [id],
      );
      return (rowCount ?? 0) > 0;
    },
    async setPassword(id: string, passwordHash: string): Promise<void> {
      await pool.query('update users set password_hash = $2, updated_at = now() where id = $1', [
        id,
        passwordHash,
      ]);
    },
    /** Points the user at a new photo; returns the key of the one it replaced. */
    async setPhoto(id: string, key: string, type: string): Promise<string | null> {
      const { rows } = await pool.query<{ previous: string | null }>(
        `update users u set photo_key = $2, photo_type = $3, updated_at = now()
         from (select photo_key as previous from users where id = $1 for update) old
         where u.id = $1 returning old.previous`,
        [id, key, type],
      );
      return rows[0]?.previous ?? null;
    },
    async remove(id: string, db: Db = pool): Promise<boolean> {
      return ((await db.query('delete from users where id = $1', [id])).rowCount ?? 0) > 0;
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
