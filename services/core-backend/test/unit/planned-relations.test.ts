import { explainStatement, plannedRelations } from '../../src/sources/planned-relations';

describe('the relations of a PostgreSQL plan', () => {
  it('are every scan of the plan, nested ones included, with their schema', () => {
    const plan = [
      {
        Plan: {
          'Node Type': 'Hash Join',
          Plans: [
            { 'Node Type': 'Seq Scan', 'Relation Name': 'orders', Schema: 'public', Alias: 'o' },
            {
              'Node Type': 'Hash',
              Plans: [
                {
                  'Node Type': 'Index Scan',
                  'Relation Name': 'salaries',
                  Schema: 'hr',
                  Alias: 's',
                },
              ],
            },
          ],
        },
      },
    ];
    expect(plannedRelations({ 'QUERY PLAN': plan })).toEqual([
      { schema: 'public', name: 'orders' },
      { schema: 'hr', name: 'salaries' },
    ]);
    // db-proxy may hand the json column over as its text.
    expect(plannedRelations({ 'QUERY PLAN': JSON.stringify(plan) })).toHaveLength(2);
  });

  it('are none for a statement that scans no relation', () => {
    expect(plannedRelations({ 'QUERY PLAN': [{ Plan: { 'Node Type': 'Result' } }] })).toEqual([]);
    expect(plannedRelations(undefined)).toEqual([]);
  });

  it('come from a plan that is not run', () => {
    expect(explainStatement('SELECT 1')).toBe('EXPLAIN (VERBOSE, FORMAT JSON) SELECT 1');
  });
});
