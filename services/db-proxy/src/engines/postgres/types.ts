/**
 * How PostgreSQL text values become JavaScript values. node-postgres's defaults stay, except:
 * - date, timestamp and timestamptz become ISO 8601 text in UTC (timestamp-text.ts): a date or
 *   timestamp without time zone is read as UTC, not in the process's local time zone, so
 *   `2024-01-02` is `2024-01-02T00:00:00.000Z` on every machine; `infinity` stays as text;
 * - json and jsonb keep integers beyond 2^53 exact (as strings, see json-text.ts).
 * Kept defaults worth knowing: int8 and numeric arrive as strings (exact), int2/int4/float as
 * numbers, bytea as a Buffer, interval as an object of its parts.
 */
import pg from 'pg';
import { parse as parseArray } from 'postgres-array';
import { parseJson } from '../../json-text';
import { timestampToIso } from '../../timestamp-text';

const arrayOf =
  <T>(parse: (text: string) => T) =>
  (text: string): Array<T | null> =>
    parseArray(text, parse);

const OVERRIDES: Record<number, (text: string) => unknown> = {
  1082: timestampToIso, // date
  1114: timestampToIso, // timestamp
  1184: timestampToIso, // timestamptz
  1182: arrayOf(timestampToIso), // date[]
  1115: arrayOf(timestampToIso), // timestamp[]
  1185: arrayOf(timestampToIso), // timestamptz[]
  114: parseJson, // json
  3802: parseJson, // jsonb
  199: arrayOf(parseJson), // json[]
  3807: arrayOf(parseJson), // jsonb[]
};

export function textParserFor(oid: number): (text: string) => unknown {
  return OVERRIDES[oid] ?? (pg.types.getTypeParser(oid, 'text') as (text: string) => unknown);
}
