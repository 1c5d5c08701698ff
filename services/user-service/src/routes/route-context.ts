/** What the route modules share besides their domain module: who acts, and how times are written. */
import type { Request } from 'express';
import type { Actor } from '../actor';
import type { FormatTimestamp } from '../timestamps';

export interface RouteContext {
  /** The acting user of a request (401 when the token's account is gone). */
  actorOf: (req: Request) => Promise<Actor>;
  time: FormatTimestamp;
}
