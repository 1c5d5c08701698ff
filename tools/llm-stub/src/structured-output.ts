/**
 * `response_format` as the stand-in understands it. The request's parameter is checked as OpenAI
 * checks it (a json_schema needs a name and, with `strict: true`, every property required and
 * no others at every level), so callers prove they send a usable schema. What the server then
 * does is a setting, to test every path of a caller:
 * - `honour`: json_schema and json_object are enforced: the answer is JSON with exactly the
 *   schema's keys, and faults that would break JSON (malformed, broken-json, think, fence) do
 *   not apply; a cut (`truncate`, `max_tokens`) still does, as on a real server;
 * - `ignore`: accepted and ignored, the answer follows the prompt (faults apply);
 * - `json_object`: json_schema is refused with a 400 (as servers without schema support do),
 *   json_object is accepted and ignored;
 * - `none`: any response_format other than text is refused with a 400.
 */
import { z } from 'zod';

export const STRUCTURED_OUTPUT_SUPPORT = ['honour', 'ignore', 'json_object', 'none'] as const;
export type StructuredOutputSupport = (typeof STRUCTURED_OUTPUT_SUPPORT)[number];

const JsonSchemaFormat = z.object({
  type: z.literal('json_schema'),
  json_schema: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
  }),
});

export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  JsonSchemaFormat,
]);
export type ResponseFormat = z.output<typeof ResponseFormatSchema>;

/** The reason a strict schema is refused, as OpenAI words it; undefined when it is fine. */
function strictSchemaProblem(schema: unknown, path = '$'): string | undefined {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const problem = strictSchemaProblem(item, `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object') {
    const keys = Object.keys((node.properties as object | undefined) ?? {});
    const required = Array.isArray(node.required) ? (node.required as string[]) : [];
    const missing = keys.filter((key) => !required.includes(key));
    if (missing.length > 0) {
      return `In context=${path}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`;
    }
    if (node.additionalProperties !== false) {
      return `In context=${path}, 'additionalProperties' is required to be supplied and to be false.`;
    }
  }
  for (const [key, value] of Object.entries(node)) {
    const problem = strictSchemaProblem(value, `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** Why the server refuses this response_format, or undefined when it takes it. */
export function refusalOf(
  format: ResponseFormat | undefined,
  support: StructuredOutputSupport,
): string | undefined {
  if (!format || format.type === 'text') return undefined;
  if (support === 'none') return `response_format ${format.type} is not supported by this server`;
  if (format.type === 'json_schema') {
    if (support === 'json_object') {
      return 'response_format json_schema is not supported by this server; use json_object';
    }
    if (format.json_schema.strict) {
      const problem = strictSchemaProblem(format.json_schema.schema);
      if (problem)
        return `Invalid schema for response_format '${format.json_schema.name}': ${problem}`;
    }
  }
  return undefined;
}

/**
 * The value shaped to a JSON schema, as a server enforcing it would produce: an object keeps
 * exactly the schema's properties (a missing one gets an empty value of its type), an object
 * where the schema wants a list of two-field pairs becomes its entries, scalars are converted.
 */
export function conformToSchema(value: unknown, schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return value;
  const node = schema as Record<string, unknown>;
  switch (node.type) {
    case 'object': {
      const properties = (node.properties as Record<string, unknown> | undefined) ?? {};
      const source =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
      return Object.fromEntries(
        Object.entries(properties).map(([key, sub]) => [key, conformToSchema(source[key], sub)]),
      );
    }
    case 'array': {
      const items = node.items as Record<string, unknown> | undefined;
      let list: unknown[] = Array.isArray(value) ? value : [];
      const pairKeys = Object.keys((items?.properties as object | undefined) ?? {});
      if (
        !Array.isArray(value) &&
        typeof value === 'object' &&
        value !== null &&
        pairKeys.length === 2
      ) {
        list = Object.entries(value as Record<string, unknown>).map(([key, item]) => ({
          [pairKeys[0]!]: key,
          [pairKeys[1]!]: item,
        }));
      }
      const max = typeof node.maxItems === 'number' ? node.maxItems : list.length;
      return list.slice(0, max).map((item) => conformToSchema(item, items));
    }
    case 'string':
      if (typeof value === 'string') return value;
      return value === undefined || value === null ? '' : JSON.stringify(value);
    case 'number':
    case 'integer':
      return Number(value) || 0;
    case 'boolean':
      return value === true;
    default:
      return value;
  }
}
