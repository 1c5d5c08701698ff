/**
 * How MySQL/MariaDB values become JavaScript values (mysql2 options and type cast), chosen for
 * exactness and for the same answers as PostgreSQL gives:
 * - BIGINT and DECIMAL arrive as strings (supportBigNumbers + bigNumberStrings), always, not as
 *   numbers that silently lose digits beyond 2^53: the same as PostgreSQL's int8 and numeric.
 *   COUNT(*) and SUM() are BIGINT/DECIMAL, so they are strings too.
 * - DATE, DATETIME and TIMESTAMP become ISO 8601 text (timestamp-text.ts), read as UTC (the
 *   session runs with time_zone '+00:00', so TIMESTAMP values are true instants); zero dates
 *   are kept as their text.
 * - JSON (MySQL's type, MariaDB's alias reported in extended metadata) keeps integers beyond 2^53.
 * - BLOB/BINARY/BIT arrive as Buffers (Base64 in the answer); TIME stays text.
 */
import type mysql from 'mysql2';
import { parseJson } from '../../json-text';
import { timestampToIso } from '../../timestamp-text';

interface CastField {
  type: string;
  extendedFormat?: string;
  string(encoding?: string): string | null;
}

const DATE_TYPES = new Set(['DATE', 'NEWDATE', 'DATETIME', 'DATETIME2', 'TIMESTAMP', 'TIMESTAMP2']);

function castValue(field: CastField, next: () => unknown): unknown {
  if (DATE_TYPES.has(field.type)) {
    const text = field.string('ascii');
    return text === null ? null : timestampToIso(text);
  }
  if (field.type === 'JSON' || field.extendedFormat === 'json') {
    // MySQL labels JSON as binary; its text is UTF-8.
    const text = field.string('utf8');
    return text === null ? null : parseJson(text);
  }
  return next();
}

export const VALUE_OPTIONS: mysql.ConnectionOptions = {
  supportBigNumbers: true,
  bigNumberStrings: true,
  dateStrings: false,
  typeCast: castValue,
};
