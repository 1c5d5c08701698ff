/**
 * The license service's activity log: who changed which client, license, mapping, account or
 * role, when, and what changed (the kit's `describeChanges`: only differing fields, secrets
 * masked). Kept in PostgreSQL beside the records, written in the change's own transaction.
 */
import type { ActivityChange } from '@pelita/kit';
import type { Queryable } from '../store/sql';

export interface Actor {
  id: string;
  email: string;
  ip?: string | undefined;
}

export interface ActivityRecord {
  id: string;
  at: Date;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  changes: ActivityChange[];
  ip: string | null;
}

export interface ActivitySearch {
  entityType?: string | undefined;
  entityId?: string | undefined;
  actor?: string | undefined;
  action?: string | undefined;
  page: number;
  pageSize: number;
}

export const ENTITY_TYPES = ['client', 'license', 'mapping', 'secrets', 'admin', 'role'] as const;

export async function recordActivity(
  db: Queryable,
  actor: Actor | null,
  action: string,
  entityType: string,
  entityId: string | null,
  changes: ActivityChange[],
): Promise<void> {
  await db.query(
    `insert into activity_log (actor_id, actor_email, action, entity_type, entity_id, changes, ip)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      actor?.id ?? null,
      actor?.email ?? null,
      action,
      entityType,
      entityId,
      JSON.stringify(changes),
      actor?.ip ?? null,
    ],
  );
}

export async function searchActivity(
  db: Queryable,
  search: ActivitySearch,
): Promise<{ rows: ActivityRecord[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (search.entityType) add((n) => `entity_type = $${n}`, search.entityType);
  if (search.entityId) add((n) => `entity_id = $${n}`, search.entityId);
  if (search.action) add((n) => `action = $${n}`, search.action);
  if (search.actor) {
    add((n) => `actor_email ilike $${n}`, `%${search.actor.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const filter = where.length ? `where ${where.join(' and ')}` : '';
  const total = await db.query<{ n: number }>(
    `select count(*)::int as n from activity_log ${filter}`,
    params,
  );
  const { rows } = await db.query<ActivityRecord>(
    `select id::text, at, actor_id, actor_email, action, entity_type, entity_id, changes, ip
     from activity_log ${filter} order by at desc, id desc
     limit ${search.pageSize} offset ${(Math.max(1, search.page) - 1) * search.pageSize}`,
    params,
  );
  return { rows, total: total.rows[0]!.n };
}
