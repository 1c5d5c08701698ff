/**
 * The relations a PostgreSQL statement reads, as the database's own parser and planner resolved
 * them: `EXPLAIN (VERBOSE, FORMAT JSON)` plans without running, and every scan in the plan names
 * its relation and schema (views expanded to what they read, CTE and alias names resolved).
 * No SQL parser of ours could agree with the server as exactly.
 */

export interface PlannedRelation {
  schema: string;
  name: string;
}

/** The statement that plans `sql` without running it. */
export const explainStatement = (sql: string) => `EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`;

/** Every relation scanned anywhere in an EXPLAIN (FORMAT JSON) answer's first row. */
export function plannedRelations(row: Record<string, unknown> | undefined): PlannedRelation[] {
  const raw = row?.['QUERY PLAN'];
  const plan: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  const found: PlannedRelation[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const fields = node as Record<string, unknown>;
    if (typeof fields['Relation Name'] === 'string') {
      const schema = typeof fields.Schema === 'string' ? fields.Schema : '';
      found.push({ schema, name: fields['Relation Name'] });
    }
    Object.values(fields).forEach(walk);
  };
  walk(plan);
  return found;
}
