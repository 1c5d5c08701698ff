/**
 * Application keys of a workspace's open API. A key is `pk_<prefix>_<secret>`: the prefix finds
 * the record and is shown in lists; only the SHA-256 digest of the secret is stored (the secret
 * is 32 random bytes, so a plain digest cannot be guessed back), and the whole key is shown
 * once, when it is made. Revoked keys stay listed. `last_used_at` is written at most once per
 * `lastUsedIntervalMs` per key.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { notFound } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../schemas/common';

export interface AppKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

interface AppKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const KEY_PATTERN = /^pk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

const toAppKey = (row: AppKeyRow): AppKey => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  prefix: row.prefix,
  createdBy: row.created_by,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

const digest = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

export function createAppKeys(pool: pg.Pool, options: { lastUsedIntervalMs: number }) {
  const lastWritten = new Map<string, number>();

  return {
    /** Makes a key; the answer carries the whole key, which is never shown again. */
    async create(workspaceId: string, name: string, userId: string) {
      const prefix = randomBytes(6).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      const { rows } = await pool.query<AppKeyRow>(
        `insert into app_keys (id, workspace_id, name, prefix, secret_hash, created_by)
         values ($1, $2, $3, $4, $5, $6) returning *`,
        [randomUUID(), workspaceId, name, prefix, digest(secret), userId],
      );
      return { ...toAppKey(rows[0]!), key: `pk_${prefix}_${secret}` };
    },

    async list(workspaceId: string, paging: Paging) {
      const { rows } = await pool.query<AppKeyRow & { total: number }>(
        `select *, count(*) over ()::int as total from app_keys where workspace_id = $1
         order by created_at desc, id limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from app_keys where workspace_id = $1',
        [workspaceId],
      );
      return { rows: rows.map(toAppKey), total: count[0]?.n ?? 0 };
    },

    async revoke(workspaceId: string, id: string): Promise<AppKey> {
      const { rows } = await pool.query<AppKeyRow>(
        `update app_keys set revoked_at = coalesce(revoked_at, now())
         where workspace_id = $1 and id = $2 returning *`,
        [workspaceId, id],
      );
      if (!rows[0]) throw notFound(`App key ${id} does not exist`);
      return toAppKey(rows[0]);
    },

    /** The live key's record, or undefined for anything else (unknown, revoked, malformed). */
    async verify(key: string): Promise<AppKey | undefined> {
      const match = KEY_PATTERN.exec(key);
      if (!match) return undefined;
      const { rows } = await pool.query<AppKeyRow>(
        'select * from app_keys where prefix = $1 and revoked_at is null',
        [match[1]],
      );
      const row = rows[0];
      if (!row || !timingSafeEqual(digest(match[2]!), row.secret_hash)) return undefined;
      const now = Date.now();
      if (now - (lastWritten.get(row.id) ?? 0) >= options.lastUsedIntervalMs) {
        lastWritten.set(row.id, now);
        await pool.query('update app_keys set last_used_at = now() where id = $1', [row.id]);
      }
      return toAppKey(row);
    },
  };
}

export type AppKeys = ReturnType<typeof createAppKeys>;
