/**
 * One answer as server-sent events, shared by a user's room (`chat-routes.ts`) and the embedded
 * widget (`embed/routes.ts`): `sources` (the passages used; titles only where the caller may not
 * read the text), `token` (`{text}` per delta), then `done` (the stored chat message record) or
 * `error` (`{code, message}`; the partial answer is stored as such). A model that cannot start throws before any event, so the route answers 502/503/504 as
 * JSON.
 */
import { toHttpError } from '@pelita/kit';
import type { Response } from 'express';
import { z } from 'zod';
import type { StartedAnswer } from './answer-pipeline';
import { openEventStream } from './event-stream';
import { toChatMessageRecord } from './schemas';
import { toPassageResponse, toPassageTitle } from '../retrieval/schemas';

export const answerEventsDoc = {
  description:
    'text/event-stream: `sources`, `token` ({text}) events, then `done` (the chat message record) or `error` ({code, message})',
  contentType: 'text/event-stream',
  schema: z.string(),
};

export const answerErrorsDoc = {
  502: { description: 'The model answered with an error' },
  503: { description: 'The model server is unreachable or busy' },
  504: { description: 'The model did not answer in time' },
};

/** Writes a started answer to the response as events, until it ends. */
export async function streamAnswer(
  started: StartedAnswer,
  res: Response,
  options: { passageText: boolean } = { passageText: true },
): Promise<void> {
  const events = openEventStream(res);
  events.send(
    'sources',
    started.sources.map((hit) => (options.passageText ? toPassageResponse : toPassageTitle)(hit)),
  );
  try {
    for await (const text of started.deltas) events.send('token', { text });
    const { message } = await started.finished();
    events.send('done', toChatMessageRecord(message));
  } catch (err) {
    const failure = toHttpError(err);
    events.send('error', { code: failure.code, message: failure.message });
  } finally {
    events.end();
  }
}
