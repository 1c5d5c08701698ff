/** The seed's error body of the policy sync, `{ info }`, used for every error it answers. */
import type { HttpError } from '@pelita/kit';
import { z } from 'zod';

export const InfoBody = z.object({ info: z.string() });

/** 5xx keep the seed's fixed text (the cause goes to the log); other errors say what is wrong. */
export function infoBody(err: HttpError): z.infer<typeof InfoBody> {
  return { info: err.status >= 500 ? 'Internal Server Error' : err.message };
}
