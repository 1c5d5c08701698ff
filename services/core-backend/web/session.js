// @ts-check
/**
 * The chat page's login session: tokens from the user service (through the core backend's
 * `/auth/*` relay), kept in sessionStorage so a reload stays logged in and closing the tab ends
 * it. Every API call sends the access token; one refused as expired is retried once after a
 * refresh. The page loads no third-party script and its CSP allows none, which is what keeps
 * tokens in storage out of other code's reach.
 */
import { errorOf } from './conversation.js';

const STORAGE_KEY = 'pelita.session';

/** @typedef {{ access_token: string, refresh_token: string }} Tokens */

export class Session {
  constructor() {
    const kept = sessionStorage.getItem(STORAGE_KEY);
    /** @type {Tokens | undefined} */
    this.tokens = kept ? JSON.parse(kept) : undefined;
  }

  get loggedIn() {
    return this.tokens !== undefined;
  }

  /** @param {string} email @param {string} password */
  async login(email, password) {
    const response = await fetch('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!response.ok) throw await errorOf(response);
    this.#keep(await response.json());
  }

  async logout() {
    if (this.tokens) {
      await fetch('/auth/logout', {
        method: 'POST',
        headers: { authorization: `Bearer ${this.tokens.access_token}` },
      }).catch(() => undefined);
    }
    this.#keep(undefined);
  }

  /**
   * A call to the core backend with the access token; a 401 refreshes once and tries again.
   * @param {string} path
   * @param {RequestInit} [init]
   */
  async fetch(path, init = {}) {
    const send = () =>
      fetch(path, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${this.tokens?.access_token}` },
      });
    let response = await send();
    if (response.status === 401 && (await this.#refresh())) response = await send();
    if (response.status === 401) this.#keep(undefined);
    return response;
  }

  /**
   * JSON in and out; a refusal throws with the server's message.
   * @param {string} path
   * @param {string} [method]
   * @param {unknown} [body]
   */
  async json(path, method = 'GET', body = undefined) {
    const response = await this.fetch(path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw await errorOf(response);
    return response.status === 204 ? undefined : response.json();
  }

  async #refresh() {
    if (!this.tokens) return false;
    const response = await fetch('/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: this.tokens.refresh_token }),
    });
    if (!response.ok) return false;
    this.#keep(await response.json());
    return true;
  }

  /** @param {Tokens | undefined} tokens */
  #keep(tokens) {
    this.tokens = tokens && {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
    };
    if (this.tokens) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.tokens));
    else sessionStorage.removeItem(STORAGE_KEY);
  }
}
