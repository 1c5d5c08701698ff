/**
 * Whether a statement can be shown, from its text alone, to leave the session as it found it,
 * so that the pooled connection may skip the reset round trip afterwards (the engines add the
 * runtime half: the statement succeeded, no transaction is open, no warnings, MariaDB/MySQL's
 * session-state flag is off).
 *
 * Conservative by construction: it does not lex strings, quoted identifiers or comments at all
 * (a lexer that disagrees with the server — sql_mode NO_BACKSLASH_ESCAPES, ANSI_QUOTES, standard
 * strings — could be led to skip a call), so every word of the text counts, wherever it stands:
 * - the statement starts with SELECT, WITH, VALUES or TABLE;
 * - no comment at all (`--`, `#`, block comments: MySQL runs `/*! ... *\/`, and a comment between
 *   a function's name and its parenthesis would hide the call);
 * - no word that writes or binds state: INTO (SELECT INTO a table, a variable, a file), SET,
 *   INSERT, UPDATE (also `FOR UPDATE`), DELETE, MERGE, CALL, DO, NOTIFY, LISTEN, PREPARE,
 *   EXECUTE, DECLARE, and no `:=` (MySQL variable assignment);
 * - every call — a word followed by `(` — is a built-in function known to be free of session
 *   effects (list below), a type name with a precision, or a keyword that takes a parenthesis
 *   (`IN (`, `AS (`, `OVER (`...). GET_LOCK, pg_advisory_lock, set_config, nextval, any user
 *   function, a schema-qualified or quoted function name: not neutral.
 *
 * What text cannot show: code the database itself runs when the statement reads an object — a
 * view calling GET_LOCK or set_config, a row-level-security policy, a domain check or operator
 * backed by a user function. SESSION_RESET=always turns the skip off for such databases.
 */
import { statementHead, type Dialect } from './leading-keyword';

const NEUTRAL_STATEMENTS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

const COMMENT = /--|#|\/\*/;
const ASSIGNMENT = /:=/;

const STATE_WORDS = new Set([
  'INTO',
  'SET',
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'CALL',
  'DO',
  'NOTIFY',
  'LISTEN',
  'PREPARE',
  'EXECUTE',
  'DECLARE',
  'HANDLER',
]);

/** Words that take a parenthesis without calling anything. */
const KEYWORDS_BEFORE_PARENTHESIS = words(`
  ALL AND ANY ARRAY AS ASC BETWEEN BY CASE CROSS DESC DISTINCT ELSE END EXCEPT EXISTS FILTER
  FOLLOWING FROM FULL GROUP GROUPS HAVING ILIKE IN INNER INTERSECT IS JOIN LATERAL LEFT LIKE
  LIMIT MATERIALIZED NOT OFFSET ON OR ORDER OUTER OVER PARTITION PRECEDING RANGE RECURSIVE RIGHT
  ROW ROWS SELECT SOME THEN UNION USING VALUES WHEN WHERE WINDOW WITH WITHIN
  `);

/** Type names with a precision or length (`numeric(10, 2)`, `varchar(20)`): built-in casts. */
const TYPES_BEFORE_PARENTHESIS = words(`
  BIGINT BINARY BIT CHAR CHARACTER DATETIME DEC DECIMAL DOUBLE FLOAT INT INTEGER INTERVAL NCHAR
  NUMERIC REAL SIGNED SMALLINT TIME TIMESTAMP TIMESTAMPTZ UNSIGNED VARBINARY VARBIT VARCHAR
  VARYING
  `);

/**
 * Built-in functions of PostgreSQL and MariaDB/MySQL that read their arguments (or the clock,
 * or the catalog) and change nothing in the session. Deliberately absent: locks (GET_LOCK,
 * pg_advisory_*), settings (set_config, setseed), sequences (nextval, setval, currval, lastval,
 * MariaDB NEXTVAL/LASTVAL/SETVAL), LAST_INSERT_ID, FOUND_ROWS, ROW_COUNT, notifications,
 * large objects, dblink, sleeps.
 */
const PURE_FUNCTIONS = words(`
  abs acos ascii asin atan atan2 avg bit_and bit_length bit_or bit_xor bool_and bool_or btrim
  cardinality cast cbrt ceil ceiling char_length character_length chr coalesce concat concat_ws
  convert cos cot count cume_dist curdate current_date current_time current_timestamp curtime
  date date_add date_format date_part date_sub date_trunc datediff day dayname dayofmonth
  dayofweek dayofyear degrees dense_rank div each every exp extract field find_in_set
  first_value floor format from_unixtime generate_series greatest group_concat hour if ifnull
  initcap instr isnull json_agg json_array json_array_length json_build_array
  json_build_object json_contains json_extract json_object json_object_agg json_unquote
  json_value jsonb_agg jsonb_array_length jsonb_build_array jsonb_build_object
  jsonb_extract_path jsonb_extract_path_text jsonb_object_agg json_extract_path
  json_extract_path_text lag last_day last_value lcase lead least left length ln localtime
  localtimestamp locate log log10 log2 lower lpad ltrim make_date make_interval make_time
  make_timestamp max md5 microsecond mid min minute mod month monthname now nth_value ntile
  nullif octet_length overlay percent_rank percentile_cont percentile_disc pi position pow power
  quarter radians rank regexp_like regexp_match regexp_matches regexp_replace regexp_substr
  repeat replace reverse right round row_number rpad rtrim second sha1 sha2 sign sin split_part
  sqrt statement_timestamp std stddev stddev_pop stddev_samp str_to_date strftime string_agg
  strpos substr substring substring_index sum tan time_format timestampdiff to_char to_date
  to_json to_jsonb to_number to_timestamp trim trunc truncate ucase unix_timestamp unnest upper
  utc_date utc_time utc_timestamp var_pop var_samp variance week weekday weekofyear year
  yearweek age array_agg array_length array_to_string clock_timestamp justify_days
  justify_hours string_to_array transaction_timestamp version database schema current_user
  session_user user current_schema current_database pg_backend_pid connection_id
  `);

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/g;

/** True when the text alone shows the statement cannot change the session (see above). */
export function isSessionNeutral(sql: string, dialect: Dialect): boolean {
  const head = statementHead(sql, dialect);
  if (head.keyword === undefined || !NEUTRAL_STATEMENTS.has(head.keyword)) return false;
  if (COMMENT.test(sql) || ASSIGNMENT.test(sql)) return false;
  for (const match of sql.matchAll(WORD)) {
    const word = match[0].toUpperCase();
    if (STATE_WORDS.has(word)) return false;
    const end = match.index + match[0].length;
    if (!followedByParenthesis(sql, end)) continue;
    if (KEYWORDS_BEFORE_PARENTHESIS.has(word) || TYPES_BEFORE_PARENTHESIS.has(word)) continue;
    if (!PURE_FUNCTIONS.has(word) || qualified(sql, match.index)) return false;
  }
  // A quoted name before a parenthesis calls a function the lists above cannot judge.
  return !/["`]\s*\(/.test(sql);
}

/**
 * MariaDB/MySQL values that describe the statement before: a reset skipped after a neutral
 * statement would let the next request read them (FOUND_ROWS is that statement's row count).
 * A statement mentioning any of these gets a reset before it runs instead.
 */
const READS_PREVIOUS_STATEMENT =
  /(?<![A-Za-z0-9_$])(FOUND_ROWS|ROW_COUNT|LAST_INSERT_ID|WARNINGS|ERRORS|WARNING_COUNT|ERROR_COUNT|DIAGNOSTICS|STATUS|PROFILES?)(?![A-Za-z0-9_$])/i;

export function readsPreviousStatement(sql: string): boolean {
  return READS_PREVIOUS_STATEMENT.test(sql);
}

function followedByParenthesis(sql: string, from: number): boolean {
  let i = from;
  while (i < sql.length && /\s/.test(sql[i] as string)) i += 1;
  return sql[i] === '(';
}

/** `schema.f(`: a function outside the built-ins, whatever its name. */
function qualified(sql: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && /\s/.test(sql[i] as string)) i -= 1;
  return sql[i] === '.';
}

function words(list: string): Set<string> {
  return new Set(
    list
      .trim()
      .split(/\s+/)
      .map((word) => word.toUpperCase()),
  );
}
