/** Shapes of app keys: what a key may answer from, and the key as its workspace lists it. */
import { z } from 'zod';
import { SOURCE_TYPES, type KeySource as KeySourceRecord } from './app-key-repository';
import type { AppKey } from './app-keys';
import { Name, pageOf, Timestamp } from '../http-schemas';

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
