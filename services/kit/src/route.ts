/**
 * A route is its HTTP shape (zod schemas for what comes in, descriptions of what goes out) plus
 * a handler. The same definition validates requests and produces the OpenAPI document.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { HttpError } from './errors';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

type Schema = z.ZodType | undefined;
type Output<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RequestSchemas<
  B extends Schema,
  Q extends Schema,
  P extends Schema,
  H extends Schema,
> {
  body?: B;
  query?: Q;
  params?: P;
  headers?: H;
  /** Media type documented for the body (validation applies to parsed JSON bodies only). */
  bodyContentType?: string;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Media type of the documented schema, `application/json` when omitted. */
  contentType?: string;
}

/** What the handler receives: the parsed (validated, defaulted, transformed) request parts. */
export interface RouteInput<
  B extends Schema,
  Q extends Schema,
  P extends Schema,
  H extends Schema,
> {
  body: Output<B>;
  query: Output<Q>;
  params: Output<P>;
  headers: Output<H>;
}

export interface RouteDefinition<
  B extends Schema = Schema,
  Q extends Schema = Schema,
  P extends Schema = Schema,
  H extends Schema = Schema,
> {
  method: HttpMethod;
  /** Express path syntax (`/users/:id`); documented as `/users/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  request?: RequestSchemas<B, Q, P, H>;
  responses: Record<number, ResponseSpec>;
  /** Open to anyone even when the service has a `guard` (login, public keys, open APIs). */
  public?: boolean;
  /**
   * Middleware run before validation, for bodies the JSON parser does not read (e.g. a
   * multipart parser that fills `req.body` with the form fields).
   */
  before?: RequestHandler[];
  /** Middleware run before the service's guard, so it sees requests the guard refuses too. */
  beforeGuard?: RequestHandler[];
  /**
   * Shape of this route's error bodies, when its spec fixes one the service's other routes do not
   * use (the OpenAI-compatible endpoints answer `{error: {message, type, param, code}}`).
   */
  errors?: { body: (err: HttpError) => unknown; schema: z.ZodType };
  /** Status sent when the handler returns a value instead of responding itself (200). */
  successStatus?: number;
  /**
   * Returns a value to send it as JSON, or responds through `res` itself (streams, pass-through)
   * and returns nothing.
   */
  handler: (input: RouteInput<B, Q, P, H>, req: Request, res: Response) => unknown;
}

/** Type-level helper: infers the handler's input types from the schemas. */
export function defineRoute<
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
  H extends Schema = undefined,
>(definition: RouteDefinition<B, Q, P, H>): RouteDefinition {
  return definition;
}
