/**
 * The keyword a statement starts with, as the database would read it: comments, white space and
 * opening parentheses skipped, in the comment syntax of each dialect.
 */
export type Dialect = 'postgresql' | 'mysql';

export interface StatementHead {
  /** First keyword in upper case; undefined when the text does not start with a word. */
  keyword: string | undefined;
  /** Nothing but white space and comments. */
  empty: boolean;
  /**
   * MySQL runs the text of `/*! ... *\/` and `/*M! ... *\/` comments as SQL (depending on the
   * server version), so what follows such a comment at the start cannot be told from here.
   */
  executableComment: boolean;
}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const SPACE = /\s/;

export function statementHead(sql: string, dialect: Dialect): StatementHead {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (SPACE.test(c) || c === '(') {
      i += 1;
    } else if (c === '-' && next === '-' && isLineComment(sql, i, dialect)) {
      i = endOfLine(sql, i);
    } else if (c === '#' && dialect === 'mysql') {
      i = endOfLine(sql, i);
    } else if (c === '/' && next === '*') {
      if (dialect === 'mysql' && isExecutableComment(sql, i)) {
        return { keyword: undefined, empty: false, executableComment: true };
      }
      i = endOfBlockComment(sql, i, dialect === 'postgresql');
    } else if (WORD_START.test(c)) {
      let end = i + 1;
      while (end < sql.length && WORD_PART.test(sql[end] as string)) end += 1;
      return { keyword: sql.slice(i, end).toUpperCase(), empty: false, executableComment: false };
    } else {
      return { keyword: undefined, empty: false, executableComment: false };
    }
  }
  return { keyword: undefined, empty: true, executableComment: false };
}

// MySQL needs white space (or a control character) after `--` for a comment; PostgreSQL does not.
function isLineComment(sql: string, i: number, dialect: Dialect): boolean {
  if (dialect === 'postgresql') return true;
  const after = sql[i + 2];
  return after === undefined || after <= ' ';
}

function isExecutableComment(sql: string, i: number): boolean {
  return sql[i + 2] === '!' || (sql[i + 2] === 'M' && sql[i + 3] === '!');
}

function endOfLine(sql: string, i: number): number {
  const end = sql.indexOf('\n', i);
  return end === -1 ? sql.length : end + 1;
}

/** PostgreSQL block comments nest; MySQL's end at the first `*\/`. Unterminated: to the end. */
function endOfBlockComment(sql: string, start: number, nested: boolean): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth = nested ? depth + 1 : 1;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  return sql.length;
}
