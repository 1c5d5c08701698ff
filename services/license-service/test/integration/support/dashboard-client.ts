/**
 * The dashboard's forms driven over plain HTTP, for tests that post many times (guessing loops):
 * a cookie jar, the anti-forgery token read from each page's form, redirects not followed. The
 * browser tests cover what the pages look like; this covers what they allow.
 */
import { Secret, TOTP } from 'otpauth';

export interface FormAnswer {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

export class DashboardClient {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(
    private readonly baseUrl: string,
    /** Sent as X-Forwarded-For (the service trusts one proxy in these tests). */
    private readonly address?: string,
  ) {}

  async get(path: string): Promise<FormAnswer> {
    return this.send('GET', path);
  }

  /** Posts a form with the token of the last page fetched. */
  async post(path: string, form: Record<string, string>): Promise<FormAnswer> {
    return this.send('POST', path, new URLSearchParams({ _csrf: this.csrf, ...form }).toString());
  }

  /** The password step: the login form fetched, then posted. */
  async password(email: string, password: string): Promise<FormAnswer> {
    await this.get('/login');
    return this.post('/login', { email, password });
  }

  /** The code form fetched (for its token), then a code posted. */
  async code(code: string): Promise<FormAnswer> {
    await this.get('/login/totp');
    return this.post('/login/totp', { code });
  }

  /** Enrolment: the key read from the page, its current code posted; returns the key. */
  async enrol(): Promise<string> {
    const page = await this.get('/login/enrol');
    const key = /class="totp-key">([A-Z2-7]+)</.exec(page.text)?.[1];
    if (!key) throw new Error(`no enrolment page: ${page.status}`);
    const done = await this.post('/login/enrol', { code: totpCode(key) });
    if (done.status !== 200) throw new Error(`enrolment refused: ${done.status}`);
    return key;
  }

  private async send(method: string, path: string, body?: string): Promise<FormAnswer> {
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (this.address) headers['x-forwarded-for'] = this.address;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body ?? null,
      redirect: 'manual',
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return {
      status: res.status,
      location: res.headers.get('location'),
      text,
      headers: res.headers,
    };
  }
}

/** The code an authenticator app shows for `key`, `offsetSeconds` from now. */
export const totpCode = (key: string, offsetSeconds = 0): string =>
  new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: Date.now() + offsetSeconds * 1000,
  });

/** Six digits that are none of the codes accepted now (the current step and one either side). */
export function wrongCode(key: string): string {
  const valid = new Set([-30, 0, 30].map((offset) => totpCode(key, offset)));
  for (let n = 0; ; n++) {
    const guess = String(n).padStart(6, '0');
    if (!valid.has(guess)) return guess;
  }
}
