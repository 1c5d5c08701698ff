/** Request and response shapes of workspaces, members, workspace roles and app keys. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import { SOURCE_TYPES, type KeySource as KeySourceRecord } from '../app-keys/app-key-repository';
import type { AppKey } from '../app-keys/app-keys';
import { Permission } from '../workspaces/permissions';
import type { WorkspaceRole } from '../workspaces/workspace-roles';
import { WorkspaceSettings } from '../workspaces/workspace-settings';
import type { Member, Workspace } from '../workspaces/workspaces';
import { Description, Name, pageOf, Timestamp } from './common';

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
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const WorkspaceList = pageOf(WorkspaceResponse);

export const toWorkspaceResponse = (w: Workspace): z.infer<typeof WorkspaceResponse> => ({
  id: w.id,
  name: w.name,
  description: w.description,
  settings: w.settings,
  created_by: w.createdBy,
  ...(w.role ? { role: w.role } : {}),
  created_at: w.createdAt.toISOString(),
  updated_at: w.updatedAt.toISOString(),
});

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
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const MemberList = pageOf(MemberResponse);
export const toMemberResponse = (m: Member): z.infer<typeof MemberResponse> => ({
  user_id: m.userId,
  username: m.username,
  full_name: m.fullName,
  role: m.role,
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
});

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
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const toRoleResponse = (r: WorkspaceRole): z.infer<typeof RoleResponse> => ({
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  builtin: r.builtin,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** What a key may answer from: documents, folders (with sub-folders), topics, audios. */
const KeySource = z.object({ type: z.enum(SOURCE_TYPES), id: z.uuid() });
export const AppKeyScope = z.object({
  /** What the key (and widgets made with it) may answer from; none: nothing. */
  sources: z.array(KeySource).max(500).default([]),
  /** Other keys of the workspace whose sessions this key may read through the history API. */
  reads_sessions_of: z.array(z.uuid()).max(100).default([]),
});
export const AppKeyBody = AppKeyScope.extend({ name: Name });
export const AppKeyParams = z.object({ workspaceId: z.uuid(), keyId: z.uuid() });
export const AppKeyResponse = z.object({
  id: z.string(),
  name: z.string(),
  /** The visible part of the key (`pk_<prefix>_...`), to tell keys apart. */
  prefix: z.string(),
  sources: z.array(KeySource),
  reads_sessions_of: z.array(z.string()),
  created_by: z.string(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export const AppKeyCreated = AppKeyResponse.extend({
  /** The whole key: shown this once, only its digest is kept. */
  key: z.string(),
});
export const AppKeyList = pageOf(AppKeyResponse);
export const toAppKeyResponse = (
  k: AppKey & { sources: KeySourceRecord[] },
): z.infer<typeof AppKeyResponse> => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  sources: k.sources,
  reads_sessions_of: k.readsSessionsOf,
  created_by: k.createdBy,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});
