/**
 * Sends requests to targets: policy check on every hop, keep-alive pools with the guarded lookup,
 * redirects followed up to a limit, answers collected within the size cap.
 */
import {
  createGuardedLookup,
  createTargetPolicy,
  TargetForbiddenError,
  type AllowedTargets,
} from '@pelita/kit';
import { createAgents } from './agents';
import type { CallSignal } from './deadline';
import { targetForbidden, upstreamFailure } from './errors';
import type { OutboundRequest, UpstreamResponse } from './messages';
import { redirectRequest } from './redirect';
import { exchange, StaleConnectionError, type ExchangeOptions } from './exchange';

export interface UpstreamClientOptions {
  allowedTargets: AllowedTargets;
  maxRedirects: number;
  maxResponseBytes: number;
}

export interface UpstreamClient {
  /** Resolves with the final answer; rejects with an HttpError or a network error. */
  send(request: OutboundRequest, signal: CallSignal): Promise<UpstreamResponse>;
  /** Closes the pooled connections (on shutdown). */
  close(): void;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const policy = createTargetPolicy(options.allowedTargets);
  const agents = createAgents(createGuardedLookup(policy));
  const exchangeOptions: ExchangeOptions = { agents, maxResponseBytes: options.maxResponseBytes };

  // IP-literal hosts are judged before connecting (names by the guarded lookup); the policy is
  // fixed for the process, so a host that passed once passes again: remembered, within a bound.
  const passedHosts = new Set<string>();
  function checkUrl(url: URL) {
    if (passedHosts.has(url.hostname)) return;
    policy.checkUrl(url);
    if (passedHosts.size >= 1024) passedHosts.clear();
    passedHosts.add(url.hostname);
  }

  async function sendOnce(request: OutboundRequest, signal: CallSignal) {
    checkUrl(request.url);
    try {
      return await exchange(request, exchangeOptions, signal);
    } catch (err) {
      if (err instanceof StaleConnectionError) return exchange(request, exchangeOptions, signal);
      throw err;
    }
  }

  async function sendFollowing(request: OutboundRequest, signal: CallSignal) {
    const origin = request.url.origin;
    let current = request;
    for (let hop = 0; ; hop++) {
      const response = await sendOnce(current, signal);
      // MAX_REDIRECTS=0 hands every redirect back to the caller unfollowed.
      if (options.maxRedirects === 0) return response;
      const location = response.headers.location?.[0];
      const next = redirectRequest(current, response.status, location, origin);
      if (!next) return response;
      if (hop >= options.maxRedirects) {
        throw upstreamFailure(`more than ${options.maxRedirects} redirects`);
      }
      current = next;
    }
  }

  return {
    // A refusal (by checkUrl, or by the guarded lookup through the socket) gets the proxy's wording.
    send: (request, signal) =>
      sendFollowing(request, signal).catch((err: unknown) => {
        throw err instanceof TargetForbiddenError ? targetForbidden(err) : err;
      }),
    close: () => agents.destroy(),
  };
}
