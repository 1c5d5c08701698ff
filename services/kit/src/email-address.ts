/**
 * An e-mail address as the services accept it: zod's address check, with the domain's labels as
 * DNS allows them (letters, digits and hyphens, 1-63 long, no hyphen first or last). zod's own
 * pattern lets `someone@host-.example` through, which the OpenAPI `email` format the services
 * document, and the mail servers that would deliver to it, refuse.
 */
import { z } from 'zod';

const LOCAL_PART = "(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL_PATTERN = new RegExp(`^${LOCAL_PART}@(?:${LABEL}\\.)+[A-Za-z]{2,}$`);

export const emailAddress = (message?: string) =>
  z.email({ pattern: EMAIL_PATTERN, ...(message === undefined ? {} : { message }) });
