/**
 * Keep-alive connection pools to the targets. Every socket they open resolves its host through
 * the guarded lookup, so no pooled connection ever leads to a refused address.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

export function createAgents(lookup: LookupFunction): OutboundAgents {
  // LIFO reuses the most recently used socket, so idle extras time out and close on their own.
  const options = { keepAlive: true, lookup, scheduling: 'lifo' as const };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
