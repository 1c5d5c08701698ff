/**
 * The dashboard's cookies: HttpOnly, SameSite=Strict, Path=/, and with COOKIE_SECURE the
 * `__Host-` prefix and Secure (the browser then refuses them over plain HTTP and from any
 * sub-domain). The session cookie has no Max-Age: it ends with the browser, and the server
 * ends the session itself.
 */
import type { Request, Response } from 'express';

export interface CookieNames {
  session: string;
  /** The login form's anti-forgery value, before any session exists. */
  loginCsrf: string;
}

export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}pelita_license_session`, loginCsrf: `${prefix}pelita_license_login` };
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function setCookie(res: Response, name: string, value: string, secure: boolean): void {
  res.append(
    'set-cookie',
    `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  res.append(
    'set-cookie',
    `${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`,
  );
}
