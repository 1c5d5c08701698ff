/**
 * What each area (workspaces, documents, chats, …) hands the app: its routes, and what runs
 * beside them. An area's `area.ts` builds its own modules from what it is given; `service.ts`
 * lists the areas instead of wiring every module.
 */
import type { ReadinessCheck, RouteDefinition } from '@pelita/kit';

export interface Area {
  routes: RouteDefinition[];
  /** Checks `/ready` runs, by name. */
  readiness?: Record<string, ReadinessCheck>;
  /** Background work (workers, pollers), started after migrations. */
  start?: () => void | Promise<void>;
  stop?: () => Promise<void>;
}
