/** The topics area: its routes, and the topics module reports and retrieval ask. */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { topicRoutes } from './routes';
import { createTopicRepository } from './topic-repository';
import { createTopics, type Topics } from './topics';

export function topicsArea(deps: {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  callerOf: CallerOf;
}): { area: Area; topics: Topics } {
  const topics = createTopics(createTopicRepository(deps.pool), deps.access, deps.workspaces);
  return { area: { routes: topicRoutes({ topics, callerOf: deps.callerOf }) }, topics };
}
