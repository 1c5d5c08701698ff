/** Clients (seed 001 D): the vendor's customers, each with licenses and secret-store mappings. */
import { z } from 'zod';
import type { Queryable } from '../store/sql';
import { createTableRepository } from '../store/table-repository';
import { field } from './form-input';

export const clientTable = createTableRepository({
  table: 'clients',
  columns: ['name', 'company_name', 'email', 'phone', 'address', 'is_active', 'max_user'],
  searchable: ['name', 'company_name', 'email', 'phone'],
  sortable: ['name', 'company_name', 'email', 'is_active', 'max_user', 'created_at'],
});

export const clientForm = z.object({
  name: field.required(),
  company_name: field.optional(200),
  email: field.email(),
  phone: field.optional(50),
  address: field.optional(1000),
  is_active: field.checkbox(),
  max_user: field.optionalInt(0),
});

/** The ids among `ids` that name no client (an account's API binding must name real ones). */
export async function unknownClientIds(db: Queryable, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    'select id from clients where id = any($1::uuid[])',
    [ids],
  );
  const known = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}

/** How many licenses and mappings a client holds (its page links to both). */
export async function clientRecordCounts(
  db: Queryable,
  clientId: string,
): Promise<{ licenses: number; mappings: number }> {
  const { rows } = await db.query<{ licenses: number; mappings: number }>(
    `select (select count(*)::int from licenses where client_id = $1) as licenses,
            (select count(*)::int from secret_mappings where client_ref = $1) as mappings`,
    [clientId],
  );
  return rows[0]!;
}
