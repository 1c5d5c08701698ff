/**
 * Infisical's API as the license service and the kit's client use it: universal-auth login
 * (`POST /api/v1/auth/universal-auth/login` → a bearer token with `expiresIn`), and secrets by
 * project, environment and path (`GET /api/v4/secrets`, `GET/PATCH /api/v4/secrets/:name`).
 * Tokens are checked on every secrets call; unknown identities get 401 as Infisical answers.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { startDoubleServer, type DoubleServer } from './double-server';

export interface InfisicalDouble extends DoubleServer {
  /** Adds a machine identity allowed to log in. */
  addIdentity(clientId: string, clientSecret: string): void;
  /** Sets a secret (creating it); the store is keyed by project, environment, path and key. */
  setSecret(scope: Scope, key: string, value: string): void;
  /** The value now stored, or undefined. */
  secretValue(scope: Scope, key: string): string | undefined;
  /** Revokes every issued token (the next call answers 401). */
  revokeTokens(): void;
}

interface Scope {
  projectId: string;
  environment: string;
  secretPath?: string;
}

interface Secret {
  value: string;
  version: number;
}

export interface InfisicalDoubleOptions {
  /** Token lifetime in seconds (Infisical's default is 7200). */
  tokenTtlSeconds?: number;
}

export async function startInfisicalDouble(
  options: InfisicalDoubleOptions = {},
): Promise<InfisicalDouble> {
  const identities = new Map<string, string>();
  const tokens = new Set<string>();
  const folders = new Map<string, Map<string, Secret>>();
  const folderKey = (s: Scope) =>
    `${s.projectId}\u0000${s.environment}\u0000${s.secretPath ?? '/'}`;
  const folder = (s: Scope) => {
    let found = folders.get(folderKey(s));
    if (!found) folders.set(folderKey(s), (found = new Map<string, Secret>()));
    return found;
  };

  const authorised = (req: Request, res: Response): boolean => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token && tokens.has(token)) return true;
    res
      .status(401)
      .json({ statusCode: 401, message: 'Token missing or invalid', error: 'UnauthorizedError' });
    return false;
  };
  const scopeOf = (source: Record<string, unknown>): Scope | undefined => {
    const { projectId, environment, secretPath } = source;
    if (typeof projectId !== 'string' || typeof environment !== 'string') return undefined;
    return {
      projectId,
      environment,
      secretPath: typeof secretPath === 'string' ? secretPath : '/',
    };
  };
  const raw = (scope: Scope, key: string, secret: Secret) => ({
    id: `${key}-id`,
    _id: `${key}-id`,
    workspace: scope.projectId,
    environment: scope.environment,
    version: secret.version,
    type: 'shared',
    secretKey: key,
    secretValue: secret.value,
    secretComment: '',
    secretPath: scope.secretPath ?? '/',
  });
  const badRequest = (res: Response) =>
    res.status(400).json({
      statusCode: 400,
      message: 'projectId and environment are required',
      error: 'BadRequest',
    });

  const { server } = await startDoubleServer((app) => {
    app.post('/api/v1/auth/universal-auth/login', (req, res) => {
      const { clientId, clientSecret } = (req.body ?? {}) as Record<string, unknown>;
      if (typeof clientId !== 'string' || identities.get(clientId) !== clientSecret) {
        res
          .status(401)
          .json({ statusCode: 401, message: 'Invalid credentials', error: 'UnauthorizedError' });
        return;
      }
      const accessToken = randomBytes(24).toString('hex');
      tokens.add(accessToken);
      const ttl = options.tokenTtlSeconds ?? 7200;
      res.json({ accessToken, expiresIn: ttl, accessTokenMaxTTL: ttl, tokenType: 'Bearer' });
    });
    app.get('/api/v4/secrets', (req, res) => {
      if (!authorised(req, res)) return;
      const scope = scopeOf(req.query);
      if (!scope) return badRequest(res);
      const secrets = [...folder(scope)].map(([key, secret]) => raw(scope, key, secret));
      res.json({ secrets, imports: [] });
    });
    app.get('/api/v4/secrets/:name', (req, res) => {
      if (!authorised(req, res)) return;
      const scope = scopeOf(req.query);
      if (!scope) return badRequest(res);
      const secret = folder(scope).get(req.params.name);
      if (!secret) {
        res.status(404).json({
          statusCode: 404,
          message: `Secret with name '${req.params.name}' not found`,
          error: 'NotFound',
        });
        return;
      }
      res.json({ secret: raw(scope, req.params.name, secret) });
    });
    app.patch('/api/v4/secrets/:name', (req, res) => {
      if (!authorised(req, res)) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const scope = scopeOf(body);
      if (!scope || typeof body.secretValue !== 'string') return badRequest(res);
      const secret = folder(scope).get(req.params.name);
      if (!secret) {
        res.status(404).json({
          statusCode: 404,
          message: `Secret with name '${req.params.name}' not found`,
          error: 'NotFound',
        });
        return;
      }
      secret.value = body.secretValue;
      secret.version += 1;
      res.json({ secret: raw(scope, req.params.name, secret) });
    });
  });

  return {
    ...server,
    addIdentity: (clientId, clientSecret) => identities.set(clientId, clientSecret),
    setSecret: (scope, key, value) => {
      const existing = folder(scope).get(key);
      folder(scope).set(key, { value, version: (existing?.version ?? 0) + 1 });
    },
    secretValue: (scope, key) => folder(scope).get(key)?.value,
    revokeTokens: () => tokens.clear(),
  };
}
