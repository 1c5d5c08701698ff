import type { DatabaseFailure } from '../../src/errors';
import { statementHead } from '../../src/sql/leading-keyword';
import { assertReadOnlyStatement } from '../../src/sql/read-only';

describe('statementHead', () => {
  it.each([
    ['SELECT 1', 'SELECT'],
    ['  select 1', 'SELECT'],
    ['((SELECT 1))', 'SELECT'],
    ['-- comment\nDELETE FROM t', 'DELETE'],
    ['/* one */ /* two */ commit', 'COMMIT'],
    ['with x as (select 1) select * from x', 'WITH'],
  ])('postgresql %j → %s', (sql, keyword) => {
    expect(statementHead(sql, 'postgresql').keyword).toBe(keyword);
  });

  it('skips nested comments on PostgreSQL only', () => {
    expect(statementHead('/* a /* b */ c */ DELETE', 'postgresql').keyword).toBe('DELETE');
    // MySQL ends the comment at the first */: "c" is the first word it reads.
    expect(statementHead('/* a /* b */ c */ DELETE', 'mysql').keyword).toBe('C');
  });

  it('reads MySQL comment rules', () => {
    expect(statementHead('# hash\nDELETE', 'mysql').keyword).toBe('DELETE');
    expect(statementHead('-- \nDELETE', 'mysql').keyword).toBe('DELETE');
    // Without a space after --, MySQL reads an expression, not a comment.
    expect(statementHead('--1', 'mysql')).toMatchObject({ keyword: undefined, empty: false });
    expect(statementHead('/*! COMMIT */', 'mysql').executableComment).toBe(true);
    expect(statementHead('/*M!100000 COMMIT */', 'mysql').executableComment).toBe(true);
    expect(statementHead('/*+ hint */ SELECT', 'mysql').keyword).toBe('SELECT');
  });

  it('tells an empty statement from one that does not start with a word', () => {
    expect(statementHead('  -- nothing', 'postgresql')).toMatchObject({ empty: true });
    expect(statementHead('/* unterminated', 'postgresql')).toMatchObject({ empty: true });
    expect(statementHead("'text'", 'postgresql')).toMatchObject({
      keyword: undefined,
      empty: false,
    });
  });
});

describe('assertReadOnlyStatement', () => {
  const refused = (sql: string, dialect: 'postgresql' | 'mysql') => {
    try {
      assertReadOnlyStatement(sql, dialect);
      return undefined;
    } catch (err) {
      return err as DatabaseFailure;
    }
  };

  it.each([
    'SELECT * FROM t',
    'with x as (select 1) select * from x',
    'VALUES (1)',
    'TABLE t',
    'SHOW search_path',
    'EXPLAIN SELECT 1',
    '(SELECT 1)',
    '-- only a comment',
  ])('accepts %j on PostgreSQL', (sql) => {
    expect(refused(sql, 'postgresql')).toBeUndefined();
  });

  it.each(['DESCRIBE t', 'DESC t', 'SHOW TABLES', 'SELECT outfile_name FROM t'])(
    'accepts %j on MySQL',
    (sql) => {
      expect(refused(sql, 'mysql')).toBeUndefined();
    },
  );

  it('looks for OUTFILE even inside strings on MySQL (conservative on purpose)', () => {
    expect(refused("SELECT 'an outfile' AS c", 'mysql')).toMatchObject({ kind: 'read_only' });
  });

  it.each([
    'COMMIT',
    'COMMIT; DELETE FROM t',
    'ROLLBACK',
    'BEGIN',
    'START TRANSACTION',
    'END',
    'ABORT',
    'SAVEPOINT s',
    'SET TRANSACTION READ WRITE',
    'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
    'SET default_transaction_read_only = off',
    'RESET ALL',
    'DISCARD ALL',
    'DELETE FROM t',
    'INSERT INTO t VALUES (1)',
    'UPDATE t SET a = 1',
    'CREATE TABLE x AS SELECT 1',
    'DROP TABLE t',
    'DO $$ BEGIN END $$',
    'CALL p()',
    "COPY t TO '/tmp/x'",
    'LOCK TABLE t',
    'PREPARE p AS SELECT 1',
    'EXECUTE p',
    '/* comment */ COMMIT',
    "'not a keyword'",
  ])('refuses %j on PostgreSQL', (sql) => {
    expect(refused(sql, 'postgresql')).toMatchObject({ kind: 'read_only' });
  });

  it.each([
    'CALL wipe()',
    'SET SESSION TRANSACTION READ WRITE',
    'SET autocommit = 1',
    'LOCK TABLES t WRITE',
    'HANDLER t OPEN',
    '/*!COMMIT*/',
    '/*!99999 SELECT 1 */ CALL p()',
    "SELECT * FROM t INTO OUTFILE '/tmp/x'",
    "SELECT * FROM t INTO dumpfile '/tmp/x'",
    "SELECT 1 INTO/**/OUTFILE '/tmp/x'",
    '# c\nDELETE FROM t',
  ])('refuses %j on MySQL', (sql) => {
    expect(refused(sql, 'mysql')).toMatchObject({ kind: 'read_only' });
  });

  it('says what is accepted', () => {
    expect(refused('DELETE FROM t', 'postgresql')?.message).toBe(
      'Read-only mode: only SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN statements are accepted, not DELETE',
    );
  });
});
