/**
 * What the responses of stored rows share: who made the row and when, and the one mapper from a
 * row to a response whose fields are its columns (the tables name their columns as the seed
 * names the fields, snake_case) or a domain object's properties (the same names in camelCase).
 */
import { z } from 'zod';
import { Timestamps } from './http-schemas';

/** The last fields of a stored item's response: who made it, when it was made and changed. */
export const Made = { created_by: z.string(), ...Timestamps };

/** A string field's column may hold a date (it is answered as ISO 8601). */
type Column<T> = T | (string extends T ? Date : never);
/** A row holding every field of `T` in a column of its name. */
export type RowOf<T> = { [K in keyof T]: Column<T[K]> };
/** `created_by` as `createdBy`. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
/** An object holding every field of `T` in a property of its name in camelCase. */
export type ObjectOf<T> = { [K in keyof T as Camel<K & string>]: Column<T[K]> };

const camel = (field: string) =>
  field.replace(/_([a-z])/g, (_all, letter: string) => letter.toUpperCase());

/**
 * The mapper from a stored row to `schema`'s response: each field the schema names is copied, in
 * the schema's order, from the row's column of that name — or, for a domain object, from its
 * property of that name in camelCase (`created_by` from `createdBy`) — a date as ISO 8601, and
 * nothing else, so a sealed secret or a lease column never reaches an answer. `computed` makes the
 * fields no column holds as they are answered (a flag for a sealed secret, a bigint's number).
 */
export function responseOf<
  Shape extends z.ZodRawShape,
  Row extends object = object,
  Computed extends Partial<z.output<z.ZodObject<Shape>>> = Record<never, never>,
>(schema: z.ZodObject<Shape>, computed?: (row: Row) => Computed) {
  type Response = z.output<z.ZodObject<Shape>>;
  type Fields = Omit<Response, keyof Computed>;
  // Each field's camelCase name worked out once, not per row: a history page maps 10,000 rows.
  const fields = Object.keys(schema.shape).map((field) => [field, camel(field)] as const);
  return (row: Row & (RowOf<Fields> | ObjectOf<Fields>)): Response => {
    const made: Record<string, unknown> | undefined = computed?.(row);
    const values = row as Record<string, unknown>;
    const response: Record<string, unknown> = {};
    for (const [field, camelField] of fields) {
      const value =
        made && field in made ? made[field] : field in values ? values[field] : values[camelField];
      response[field] = value instanceof Date ? value.toISOString() : value;
    }
    return response as Response;
  };
}
