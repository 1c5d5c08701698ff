/**
 * The license service's API: `GET {LICENSE_API_URL}/api/licenses/{id_client}` with HTTP Basic.
 * Pelita's license service adds its own verdict, `validation: { valid, code, detail }`; the
 * seed's answer has none, so it is optional here.
 */
import { HttpError } from '@pelita/kit';
import { z } from 'zod';

const LicenseAnswer = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.string(),
    is_active: z.boolean(),
    max_user: z.number().int().nullable().optional(),
    licenses: z.array(
      z.object({
        id: z.string(),
        license_name: z.string().optional(),
        status: z.boolean(),
        expired_date: z.string().nullable().optional(),
      }),
    ),
    /** Inside `data` on a 200, beside it on a 404. Codes: `VALID`, `NOT_FOUND`, `SUSPENDED`, ... */
    validation: z
      .object({ valid: z.boolean(), code: z.string(), detail: z.string().optional() })
      .optional(),
  }),
});
export type LicensedClient = z.infer<typeof LicenseAnswer>['data'];

export interface LicenseClientOptions {
  baseUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** LICENSE_API_TIMEOUT_MS. */
  timeoutMs: number;
}

const unavailable = (why: string, cause?: unknown) =>
  new HttpError(503, 'license_unavailable', `License validation is unavailable: ${why}`, { cause });

export function createLicenseClient(options: LicenseClientOptions) {
  const url = `${options.baseUrl}/api/licenses/${encodeURIComponent(options.clientId)}`;
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  return {
    /** The client with its licenses; null when the license service does not know the client. */
    async fetchClient(): Promise<LicensedClient | null> {
      let res: Response;
      try {
        res = await fetch(url, {
          headers: { authorization, accept: 'application/json' },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        throw unavailable('the license service did not answer', err);
      }
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw unavailable(`the license service answered ${res.status}`);
      }
      const parsed = LicenseAnswer.safeParse(await res.json().catch(() => undefined));
      if (!parsed.success) throw unavailable('the license service answered outside its contract');
      return parsed.data.data;
    },
  };
}

export type LicenseClient = ReturnType<typeof createLicenseClient>;
