/**
 * One managed record type (clients, licenses, mappings, accounts, roles) as the dashboard's pages
 * use it: read one, list a page of them, and create, update and delete with the activity entry in
 * the same transaction — the entry holds the fields that changed with their before and after
 * values (the kit's `describeChanges`, which masks secrets such as a mapping's client secret).
 */
import { describeChanges, inTransaction } from '@pelita/kit';
import type { Pool } from 'pg';
import { recordActivity, type Actor } from '../activity/activity-log';
import type {
  ListQuery,
  ListResult,
  Row,
  TableDefinition,
  TableRepository,
} from '../store/table-repository';

export interface ManagedRecords {
  definition: TableDefinition;
  /** null when there is no such record (or the id is malformed). */
  get(id: string): Promise<Row | null>;
  list(query: ListQuery): Promise<ListResult>;
  create(actor: Actor, values: Record<string, unknown>): Promise<Row>;
  /** null when the record does not exist. */
  update(actor: Actor, id: string, values: Record<string, unknown>): Promise<Row | null>;
  remove(actor: Actor, id: string): Promise<Row | null>;
}

export function createManagedRecords(
  pool: Pool,
  repository: TableRepository,
  entityType: string,
): ManagedRecords {
  return {
    definition: repository.definition,
    get: (id) => repository.get(pool, id),
    list: (query) => repository.list(pool, query),
    create: (actor, values) =>
      inTransaction(pool, async (db) => {
        const row = await repository.insert(db, values);
        await recordActivity(
          db,
          actor,
          `${entityType}.create`,
          entityType,
          row.id,
          describeChanges(null, row),
        );
        return row;
      }),
    update: (actor, id, values) =>
      inTransaction(pool, async (db) => {
        const before = await repository.get(db, id, true);
        if (!before) return null;
        const after = (await repository.update(db, id, values))!;
        const changes = describeChanges(before, after);
        if (changes.length > 0) {
          await recordActivity(db, actor, `${entityType}.update`, entityType, id, changes);
        }
        return after;
      }),
    remove: (actor, id) =>
      inTransaction(pool, async (db) => {
        const row = await repository.remove(db, id);
        if (row) {
          await recordActivity(
            db,
            actor,
            `${entityType}.delete`,
            entityType,
            id,
            describeChanges(row, null),
          );
        }
        return row;
      }),
  };
}
