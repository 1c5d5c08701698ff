/** The `Authorization` header the description asks for (seed "Authentication"), with the JWT login step. */
import { validateHeaderValue } from 'node:http';
import { errorMessage, HttpError } from '@pelita/kit';
import type { AuthDescription, ConnectionDescription } from './connection';
import { LoginFailedError } from './errors';
import type { OutboundRequest, UpstreamResponse } from './messages';
import { describedHeaders, targetUrl } from './request-builder';

export type Send = (request: OutboundRequest) => Promise<UpstreamResponse>;

/** Undefined when the description has no `auth`: the request then goes without Authorization. */
export async function authorizationFor(
  connection: ConnectionDescription,
  send: Send,
): Promise<string | undefined> {
  const auth = connection.auth;
  switch (auth?.type) {
    case undefined:
      return undefined;
    case 'basic':
      return `Basic ${Buffer.from(`${auth.user}:${auth.password}`, 'utf8').toString('base64')}`;
    case 'bearer':
      return `Bearer ${auth.token}`;
    case 'jwt':
      return `Bearer ${await logIn(connection, auth, send)}`;
  }
}

type JwtAuth = Extract<AuthDescription, { type: 'jwt' }>;

/**
 * POST `{host}{loginPath}` with JSON `{user, password}` and take `token` from the JSON answer.
 * The described headers go along (APIs often want their key on the login too), except that the
 * login body is always JSON. Refusals, time-outs and oversize answers keep their own status;
 * every other failure is the seed's 500, saying which part of the login went wrong.
 */
async function logIn(connection: ConnectionDescription, auth: JwtAuth, send: Send) {
  const request: OutboundRequest = {
    url: targetUrl(connection.host, auth.loginPath, [], 'auth.loginPath'),
    method: 'POST',
    headers: {
      accept: 'application/json',
      ...describedHeaders(connection.headers),
      'content-type': 'application/json',
    },
    body: Buffer.from(JSON.stringify({ user: auth.user, password: auth.password }), 'utf8'),
  };
  let response: UpstreamResponse;
  try {
    response = await send(request);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new LoginFailedError(errorMessage(err), err);
  }
  if (response.status < 200 || response.status >= 300) {
    throw new LoginFailedError(`the login endpoint answered ${response.status}`);
  }
  return tokenFrom(response.body);
}

function tokenFrom(body: Buffer): string {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    throw new LoginFailedError('the login answer is not JSON');
  }
  const token = (answer as { token?: unknown } | null)?.token;
  if (typeof token !== 'string' || token === '') {
    throw new LoginFailedError('the login answer has no string `token`');
  }
  try {
    validateHeaderValue('authorization', token);
  } catch {
    throw new LoginFailedError('the login token cannot be sent in a header');
  }
  return token;
}
