/** Parses the request parts a route declares; every problem found goes into one 400. */
import type { Request } from 'express';
import type { z } from 'zod';
import { badRequest, type ErrorDetail } from './errors';
import type { RequestSchemas, RouteInput } from './route';

const PARTS = ['params', 'query', 'headers', 'body'] as const;

type AnyRequestSchemas = RequestSchemas<
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined
>;
type AnyInput = RouteInput<
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined
>;

export function parseRequest(schemas: AnyRequestSchemas | undefined, req: Request): AnyInput {
  const input: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  for (const part of PARTS) {
    const schema = schemas?.[part];
    if (!schema) continue;
    const result = schema.safeParse(req[part]);
    if (result.success) {
      input[part] = result.data;
    } else {
      for (const issue of result.error.issues) {
        details.push({ in: part, path: issue.path.map(String).join('.'), message: issue.message });
      }
    }
  }
  if (details.length > 0) throw badRequest(describe(details), details);
  return input as unknown as AnyInput;
}

function describe(details: ErrorDetail[]): string {
  const shown = details
    .slice(0, 3)
    .map((d) => `${d.in}${d.path ? `.${d.path}` : ''}: ${d.message}`);
  const more = details.length > shown.length ? ` (and ${details.length - shown.length} more)` : '';
  return `Invalid request: ${shown.join('; ')}${more}`;
}
