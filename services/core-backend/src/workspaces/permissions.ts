/** What a workspace role may grant: each route of a workspace asks for one of these. */
import { z } from 'zod';

const PERMISSIONS = [
  /** Rename, settings, delete, app keys, prompts, models, integrations, iframes. */
  'workspace.manage',
  /** Add, change and remove members. */
  'members.manage',
  /** Add knowledge (documents, topics, audios, databases, APIs) and change what one may use. */
  'knowledge.write',
  /** Use the knowledge shared with one. */
  'knowledge.read',
  /** See and manage every knowledge resource, whatever its access list says. */
  'knowledge.all',
  /** Chat in the workspace. */
  'chat',
] as const;

export const Permission = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof Permission>;
