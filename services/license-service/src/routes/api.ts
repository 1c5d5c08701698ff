/**
 * The license API (seed 001 D): `GET /api/licenses/{id_client}` with HTTP Basic credentials of a
 * dashboard account, and `GET /api/health`. Its answers keep the seed's `{ success, ... }` shape,
 * errors included.
 */
import { defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import type { Pool } from 'pg';
import { z } from 'zod';
import { licenseFor, VALIDATION_CODES } from '../api/license-lookup';
import { basicCredentials } from '../auth/basic-credentials';
import type { PasswordCheck } from '../auth/password-check';
import type { LicenseMetrics } from '../metrics';

export const SeedError = z.object({ success: z.literal(false), message: z.string() });
export const seedErrorBody = (err: HttpError) => ({
  success: false as const,
  message: err.message,
});

const Validation = z.object({
  valid: z.boolean(),
  code: z.enum(VALIDATION_CODES),
  detail: z.string(),
});

const ClientWithLicenses = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.string(),
    name: z.string(),
    company_name: z.string(),
    email: z.string(),
    phone: z.string(),
    address: z.string(),
    is_active: z.boolean(),
    max_user: z.number().int().nullable(),
    licenses: z.array(
      z.object({
        id: z.string(),
        license_name: z.string(),
        status: z.boolean(),
        expired_date: z.string().nullable(),
        activated_date: z.string().nullable(),
        serial_number: z.string(),
        qty: z.number().int(),
        module: z.string(),
      }),
    ),
    validation: Validation,
  }),
});

const NotFound = SeedError.extend({ validation: Validation.optional() });

const unauthenticated = (metrics: LicenseMetrics) => {
  metrics.licenseChecks.inc({ outcome: 'unauthenticated' });
  return new HttpError(401, 'unauthenticated', 'Unauthenticated.');
};

export function apiRoutes(
  pool: Pool,
  passwords: PasswordCheck,
  metrics: LicenseMetrics,
  now = () => new Date(),
): RouteDefinition[] {
  const errors = { body: seedErrorBody, schema: SeedError };
  return [
    defineRoute({
      method: 'get',
      path: '/api/health',
      summary: 'Liveness of the license API (seed: "simple health response")',
      tags: ['license API'],
      responses: {
        200: {
          description: 'The service is up',
          schema: z.object({
            success: z.literal(true),
            message: z.literal('OK'),
            timestamp: z.string(),
          }),
        },
      },
      handler: () => ({ success: true, message: 'OK', timestamp: now().toISOString() }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id_client',
      summary: 'A client with its licenses, and whether they make a valid license',
      description:
        'HTTP Basic with a dashboard account whose role has the `api.licenses` permission; it ' +
        'reads the clients it is bound to (every client with `api.licenses.all`), any other ' +
        'is answered as unknown (404). ' +
        '`users` (optional): the seats the caller will have in use; beyond `max_user` the ' +
        "validation code is TOO_MANY_USERS. An unknown client is the seed's 404.",
      tags: ['license API'],
      errors,
      request: {
        params: z.object({ id_client: z.string().max(100) }),
        query: z.object({ users: z.coerce.number().int().min(0).max(10_000_000).optional() }),
      },
      responses: {
        200: { description: 'The client and its licenses', schema: ClientWithLicenses },
        401: {
          description: 'No, malformed or wrong Basic credentials (or the account is locked)',
          schema: SeedError,
        },
        403: { description: 'The account may not use the license API', schema: SeedError },
        429: {
          description:
            'Too many failed attempts from this address (Retry-After); nothing was checked',
          schema: SeedError,
        },
        503: {
          description: 'Too many password checks running (Retry-After); nothing was checked',
          schema: SeedError,
        },
        404: { description: 'License not found', schema: NotFound },
      },
      handler: async ({ params, query }, req, res) => {
        // Read from the request, not declared as a header parameter: a fuzzer or client generator
        // should send Basic credentials, not invent an Authorization value.
        const credentials = basicCredentials(req.headers.authorization);
        res.set('www-authenticate', 'Basic realm="Pelita license API", charset="UTF-8"');
        if (!credentials) throw unauthenticated(metrics);
        const outcome = await passwords.check({
          email: credentials.user,
          password: credentials.password,
          surface: 'api',
          address: req.ip ?? '',
        });
        if (!outcome.ok && (outcome.reason === 'throttled' || outcome.reason === 'busy')) {
          metrics.licenseChecks.inc({ outcome: outcome.reason });
          res.set('retry-after', String(outcome.retryAfterSeconds));
          throw outcome.reason === 'throttled'
            ? new HttpError(
                429,
                'too_many_requests',
                `Too many failed attempts from this address; try again in ${outcome.retryAfterSeconds} s`,
              )
            : new HttpError(503, 'busy', 'The license service is busy; try again in a moment');
        }
        if (!outcome.ok) throw unauthenticated(metrics);
        res.removeHeader('www-authenticate');
        const answer = await licenseFor(
          pool,
          outcome.account,
          params.id_client,
          now(),
          query.users,
        );
        if (!answer.allowed) {
          metrics.licenseChecks.inc({ outcome: 'forbidden' });
          throw new HttpError(403, 'forbidden', 'This account may not use the license API');
        }
        const { client } = answer;
        metrics.licenseChecks.inc({ outcome: client?.validation.code ?? 'NOT_FOUND' });
        if (!client) {
          res.status(404).json({
            success: false,
            message: 'License not found',
            validation: { valid: false, code: 'NOT_FOUND', detail: 'No such client' },
          });
          return;
        }
        return { success: true, data: client };
      },
    }),
  ];
}
