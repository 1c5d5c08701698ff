/** The request the proxy sends to a target, and the answer it collects from it. */

export type OutboundMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutboundRequest {
  url: URL;
  method: OutboundMethod;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: Buffer;
}

export interface UpstreamResponse {
  status: number;
  /** As node parsed them: lower-case names, every value of repeated headers kept. */
  headers: NodeJS.Dict<string[]>;
  /** The raw bytes, still content-encoded when the target compressed them. */
  body: Buffer;
  /** The URL that answered (differs from the first one after redirects). */
  url: URL;
}
