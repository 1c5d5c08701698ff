/**
 * The connection description of `POST /proxy` (seed 000 A, "Resources"): the zod schemas that
 * validate it and document it in `/api-docs`, and the types the forwarding code works with.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { z } from 'zod';
import type { OutboundMethod } from './messages';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;

/** Numbers and booleans are accepted where the seed says string: they travel as text anyway. */
const text = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const headerName = z.string().refine(
  passes((name) => validateHeaderName(name)),
  'not a valid header name',
);
const headerValue = z.string().refine(
  passes((value) => validateHeaderValue('header', value)),
  'not a valid header value (control characters?)',
);

export const QueryParam = z.object({ key: z.string(), value: text });

export const Auth = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('basic'), user: z.string(), password: z.string() })
    .describe('Authorization: Basic base64(user:password)'),
  z
    .object({ type: z.literal('bearer'), token: z.string().min(1).pipe(headerValue) })
    .describe('Authorization: Bearer <token>'),
  z
    .object({
      type: z.literal('jwt'),
      user: z.string(),
      password: z.string(),
      loginPath: z.string(),
    })
    .describe(
      'POST {host}{loginPath} with JSON {user, password}; the token of the answer is then sent as ' +
        'Authorization: Bearer <token>',
    ),
]);

const Endpoint = z.object({
  path: z.string().default('').describe('Appended to connection.host'),
  method: z
    .string()
    .regex(new RegExp(`^(${METHODS.join('|')})$`, 'i'), `must be one of ${METHODS.join(', ')}`)
    .transform((method) => method.toUpperCase() as OutboundMethod)
    .default('GET')
    .describe('HTTP method, any case; GET when omitted'),
  params: z
    .array(QueryParam)
    .default([])
    .describe('Query parameters, appended to the URL for every method'),
  body: z.unknown().optional().describe('Request body for POST, PUT, PATCH and DELETE'),
});

export const Connection = z.object({
  host: z
    .string()
    // The pattern documents the scheme in the OpenAPI schema; the refinement checks the rest.
    .regex(/^https?:\/\//i, 'must start with http:// or https://')
    .refine(isHttpBaseUrl, 'must be an absolute http(s) URL without user:password')
    .describe('Base URL of the target API'),
  name: z.string().optional().describe('Label, used in logs only'),
  auth: Auth.optional().describe(
    'How to authenticate to the target; no Authorization when omitted',
  ),
  endpoint: Endpoint,
  body: z.unknown().optional().describe('Request body, used when endpoint.body is absent'),
  headers: z
    .record(headerName, text.pipe(headerValue))
    .default({})
    .describe('Sent with the forwarded request, whatever its method'),
});

export const ProxyRequest = z.object({ connection: Connection });

export type ConnectionDescription = z.output<typeof Connection>;
export type AuthDescription = z.output<typeof Auth>;
export type QueryParamDescription = z.output<typeof QueryParam>;

function isHttpBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password
    );
  } catch {
    return false;
  }
}

/** Node's header validators throw; zod refinements want a boolean. */
function passes(validate: (value: string) => void) {
  return (value: string) => {
    try {
      validate(value);
      return true;
    } catch {
      return false;
    }
  };
}
