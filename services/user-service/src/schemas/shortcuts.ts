/** Shortcut list schemas and mapper. */
import { z } from 'zod';
import type { Shortcut as ShortcutEntity } from '../roles/shortcut-repository';
import { Label, Name } from './common';

const Shortcut = z.object({
  name: Name,
  label: Label,
  path: z
    .string()
    .min(1)
    .max(500)
    // eslint-disable-next-line no-control-regex -- NUL cannot be stored (see the kit's storedText)
    .regex(/^\/[^\s\u0000]*$/, 'a path starting with /, without spaces'),
});
export const ShortcutListBody = z.object({ shortcuts: z.array(Shortcut).max(100) });

const ShortcutResponse = z.object({
  id: z.number().int(),
  position: z.number().int(),
  name: z.string(),
  label: z.string(),
  path: z.string(),
});
export const ShortcutListResponse = z.object({
  role_id: z.number().int(),
  shortcuts: z.array(ShortcutResponse),
});

/** A role's shortcut list: what `Shortcuts.ofActor` gives, and the routes give of any role. */
export interface RoleShortcuts {
  roleId: number;
  shortcuts: ShortcutEntity[];
}

export const toShortcutList = ({ roleId, shortcuts }: RoleShortcuts) => ({
  role_id: roleId,
  shortcuts: shortcuts.map(({ id, position, name, label, path }) => ({
    id,
    position,
    name,
    label,
    path,
  })),
});
