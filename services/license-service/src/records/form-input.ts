/**
 * Form fields as the dashboard's HTML forms send them (urlencoded strings; an unticked checkbox
 * is absent) parsed into values, with one message per field for the page to show next to it.
 */
import { emailAddress } from '@pelita/kit';
import { z } from 'zod';

export type FormBody = Record<string, string | string[] | undefined>;
export type FieldErrors = Record<string, string>;

export type FormResult<T> = { ok: true; values: T } | { ok: false; errors: FieldErrors };

/** A single text field: trimmed; a repeated field keeps its last value. */
const text = (value: unknown): unknown =>
  Array.isArray(value) ? (value as unknown[]).at(-1) : value;
const trimmed = z.preprocess(
  (v) => (typeof text(v) === 'string' ? (text(v) as string).trim() : ''),
  z.string(),
);

export const field = {
  required: (max = 200) =>
    trimmed.pipe(z.string().min(1, 'Required').max(max, `At most ${max} characters`)),
  optional: (max = 500) => trimmed.pipe(z.string().max(max, `At most ${max} characters`)),
  email: () =>
    trimmed.pipe(z.union([z.literal(''), emailAddress('Not an e-mail address').max(200)])),
  requiredEmail: () => trimmed.pipe(emailAddress('Not an e-mail address').max(200)),
  checkbox: () => z.preprocess((v) => text(v) !== undefined && text(v) !== '', z.boolean()),
  /** Empty: null. */
  optionalInt: (min: number, max = 1_000_000_000) =>
    trimmed.pipe(
      z.union([
        z.literal('').transform(() => null),
        z.coerce
          .number<string>('Must be a whole number')
          .int('Must be a whole number')
          .min(min, `At least ${min}`)
          .max(max, `At most ${max}`),
      ]),
    ),
  int: (min: number, max = 1_000_000_000) =>
    trimmed.pipe(
      z.coerce
        .number<string>('Must be a whole number')
        .int('Must be a whole number')
        .min(min, `At least ${min}`)
        .max(max, `At most ${max}`),
    ),
  /** `YYYY-MM-DD` from a date input; empty: null. Stored as midnight UTC. */
  optionalDate: () =>
    trimmed.pipe(
      z.union([
        z.literal('').transform(() => null),
        z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date (YYYY-MM-DD)')
          .transform((v) => new Date(`${v}T00:00:00Z`))
          .refine((d) => !Number.isNaN(d.getTime()), 'Not a date'),
      ]),
    ),
  /** Every value of a repeated field (checkbox groups). */
  list: () =>
    z.preprocess(
      (v): unknown[] => (v === undefined ? [] : Array.isArray(v) ? (v as unknown[]) : [v]),
      z.array(z.string().max(100)).max(100),
    ),
};

export function parseForm<S extends z.ZodType>(schema: S, body: FormBody): FormResult<z.output<S>> {
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, values: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const name = issue.path.map(String).join('.') || '_form';
    errors[name] ??= issue.message;
  }
  return { ok: false, errors };
}
