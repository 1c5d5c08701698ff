import { isSessionNeutral, readsPreviousStatement } from '../../src/sql/session-neutral';

describe('isSessionNeutral', () => {
  it.each([
    'SELECT 1 AS one',
    'select id, name from t where id in (1, 2) order by id',
    'WITH x AS (SELECT count(*) AS n FROM t) SELECT n FROM x',
    "SELECT date_trunc('day', created_at), sum(amount) FROM t GROUP BY 1",
    'SELECT CAST(amount AS decimal(10, 2)) FROM t',
    'SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t',
    'VALUES (1), (2)',
    'TABLE t',
    'SELECT * FROM a LEFT JOIN b ON (a.id = b.id) WHERE EXISTS (SELECT 1 FROM c)',
    'SELECT * FROM t FOR SHARE',
  ])('neutral: %s', (sql) => {
    expect(isSessionNeutral(sql, 'postgresql')).toBe(true);
    expect(isSessionNeutral(sql, 'mysql')).toBe(true);
  });

  it.each([
    // Not a read statement.
    'SET search_path = x',
    'PREPARE p AS SELECT 1',
    'CREATE TEMP TABLE t (a int)',
    'BEGIN',
    'LISTEN channel',
    'DECLARE c CURSOR WITH HOLD FOR SELECT 1',
    'SHOW search_path',
    // Functions with session effects, and any function the list does not know.
    "SELECT set_config('a.b', 'c', false)",
    'SELECT pg_advisory_lock(1)',
    "SELECT GET_LOCK('x', 0)",
    "SELECT nextval('s')",
    'SELECT LAST_INSERT_ID(5)',
    'SELECT my_function(1)',
    'SELECT public.count(1)',
    'SELECT "count"(1)',
    'SELECT `count`(1)',
    // Hidden calls and state words, wherever they stand.
    'SELECT count /* hide */ (1)',
    'SELECT 1 -- comment',
    'SELECT 1 # comment',
    '/*! SELECT GET_LOCK(1, 0) */ SELECT 1',
    'SELECT @x := 1',
    'SELECT 1 INTO @x',
    'SELECT 1 AS a INTO TEMP t',
    'SELECT * FROM t FOR UPDATE',
    'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
    "SELECT 'x' FROM t WHERE a = 'GET_LOCK(1)'",
  ])('not neutral: %s', (sql) => {
    expect(isSessionNeutral(sql, 'postgresql')).toBe(false);
    expect(isSessionNeutral(sql, 'mysql')).toBe(false);
  });
});

describe('readsPreviousStatement', () => {
  it.each([
    'SELECT FOUND_ROWS()',
    'SHOW WARNINGS',
    'select @@warning_count',
    'SHOW SESSION STATUS',
  ])('%s', (sql) => expect(readsPreviousStatement(sql)).toBe(true));
  it('not for an ordinary select', () => {
    expect(readsPreviousStatement('SELECT status_code FROM t')).toBe(false);
  });
});
