/**
 * The plain CRUD of one table the dashboard manages (clients, licenses, mappings, accounts,
 * roles): read, insert, update, delete by id, and the searched, sorted, paged list of its pages.
 * Column and sort names come from the definition, never from the request, so they are safe to
 * place in SQL; every value is a parameter.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from './sql';

export type Row = Record<string, unknown> & { id: string };

export interface TableDefinition {
  table: string;
  /** Columns written from a form, in order. */
  columns: readonly string[];
  /** Columns a search matches (case-insensitive substring). */
  searchable: readonly string[];
  /** Columns a list may be sorted by; the first is the default. */
  sortable: readonly string[];
  /** The column naming the parent record (licenses and mappings belong to a client). */
  parentColumn?: string;
}

export interface ListQuery {
  q?: string | undefined;
  sort?: string | undefined;
  dir?: 'asc' | 'desc' | undefined;
  page: number;
  pageSize: number;
  parentId?: string | undefined;
}

export interface ListResult {
  rows: Row[];
  total: number;
  page: number;
  pageSize: number;
  sort: string;
  dir: 'asc' | 'desc';
}

export interface TableRepository {
  definition: TableDefinition;
  get(db: Queryable, id: string, forUpdate?: boolean): Promise<Row | null>;
  insert(db: Queryable, values: Record<string, unknown>): Promise<Row>;
  update(db: Queryable, id: string, values: Record<string, unknown>): Promise<Row | null>;
  remove(db: Queryable, id: string): Promise<Row | null>;
  list(db: Queryable, query: ListQuery): Promise<ListResult>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

export function createTableRepository(definition: TableDefinition): TableRepository {
  const { table, columns } = definition;
  const writable = (values: Record<string, unknown>) =>
    Object.keys(values).filter((key) => columns.includes(key) || key === definition.parentColumn);

  return {
    definition,
    async get(db, id, forUpdate = false) {
      if (!isUuid(id)) return null;
      const { rows } = await db.query<Row>(
        `select * from ${table} where id = $1${forUpdate ? ' for update' : ''}`,
        [id],
      );
      return rows[0] ?? null;
    },
    async insert(db, values) {
      const keys = writable(values);
      const { rows } = await db.query<Row>(
        `insert into ${table} (id, ${keys.join(', ')})
         values ($1, ${keys.map((_, i) => `$${i + 2}`).join(', ')}) returning *`,
        [randomUUID(), ...keys.map((key) => values[key])],
      );
      return rows[0]!;
    },
    async update(db, id, values) {
      if (!isUuid(id)) return null;
      const keys = writable(values);
      const { rows } = await db.query<Row>(
        `update ${table} set ${keys.map((key, i) => `${key} = $${i + 2}`).join(', ')}${
          keys.length ? ', ' : ''
        }updated_at = now() where id = $1 returning *`,
        [id, ...keys.map((key) => values[key])],
      );
      return rows[0] ?? null;
    },
    async remove(db, id) {
      if (!isUuid(id)) return null;
      const { rows } = await db.query<Row>(`delete from ${table} where id = $1 returning *`, [id]);
      return rows[0] ?? null;
    },
    async list(db, query) {
      const sort = definition.sortable.includes(query.sort ?? '')
        ? query.sort!
        : definition.sortable[0]!;
      const dir = query.dir === 'desc' ? 'desc' : 'asc';
      const where: string[] = [];
      const params: unknown[] = [];
      if (definition.parentColumn && query.parentId !== undefined) {
        params.push(query.parentId);
        where.push(`${definition.parentColumn} = $${params.length}`);
      }
      if (query.q) {
        params.push(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
        where.push(
          `(${definition.searchable.map((c) => `${c}::text ilike $${params.length}`).join(' or ')})`,
        );
      }
      const filter = where.length ? `where ${where.join(' and ')}` : '';
      const total = await db.query<{ n: number }>(
        `select count(*)::int as n from ${table} ${filter}`,
        params,
      );
      const page = Math.max(1, query.page);
      const { rows } = await db.query<Row>(
        `select * from ${table} ${filter}
         order by ${sort} ${dir} nulls last, id
         limit ${query.pageSize} offset ${(page - 1) * query.pageSize}`,
        params,
      );
      return { rows, total: total.rows[0]!.n, page, pageSize: query.pageSize, sort, dir };
    },
  };
}
