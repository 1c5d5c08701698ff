/** Request and response shapes of workspaces, members, workspace roles and app keys. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import { Permission } from './permissions';
import { WorkspaceSettings } from './workspace-settings';
import { Description, Name, pageOf, Timestamps } from '../http-schemas';
import { responseOf } from '../row-schemas';

export const WorkspaceBody = z.object({
  name: Name,
  description: Description.default(''),
  settings: WorkspaceSettings.default(WorkspaceSettings.parse({})),
});
export const WorkspacePatch = z
  .object({ name: Name, description: Description, settings: WorkspaceSettings })
  .partial();

export const WorkspaceResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  settings: WorkspaceSettings,
  created_by: z.string(),
  /** The caller's workspace role; absent in the administrators' list. */
  role: z.string().optional(),
  ...Timestamps,
});
export const WorkspaceList = pageOf(WorkspaceResponse);

export const toWorkspaceResponse = responseOf(WorkspaceResponse);

const RoleName = z
  .string()
  .min(2)
  .max(40)
  .regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes, starting with a letter');
export const MemberParams = z.object({
  workspaceId: z.uuid(),
  userId: storedText().min(1).max(128),
});
export const MemberBody = z.object({ role: RoleName });
export const MemberResponse = z.object({
  user_id: z.string(),
  username: z.string(),
  full_name: z.string(),
  role: z.string(),
  ...Timestamps,
});
export const MemberList = pageOf(MemberResponse);
export const toMemberResponse = responseOf(MemberResponse);

export const RoleBody = z.object({
  name: RoleName,
  description: Description.default(''),
  permissions: z.array(Permission).min(1),
});
export const RoleParams = z.object({ name: RoleName });
export const RoleResponse = z.object({
  name: z.string(),
  description: z.string(),
  permissions: z.array(Permission),
  builtin: z.boolean(),
  ...Timestamps,
});
export const toRoleResponse = responseOf(RoleResponse);
