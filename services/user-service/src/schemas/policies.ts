/** Policy schemas and mapper: a role's grant of a sub-feature, with its status. */
import { z } from 'zod';
import type { PolicyRow } from '../access/access-repository';
import type { FormatTimestamp } from '../timestamps';
import { Timestamp } from './common';

const Id = z.number().int().positive().max(2_147_483_647);
export const GrantBody = z.object({
  role_id: Id,
  sub_feature_id: Id,
  status: z.boolean().default(true),
});
export const StatusBody = z.object({ status: z.boolean() });
export const PolicyQuery = z.object({
  role_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});

export const PolicyResponse = z.object({
  id: z.number().int(),
  role: z.object({ id: z.number().int(), name: z.string() }),
  feature: z.object({ id: z.number().int(), name: z.string() }),
  sub_feature: z.object({
    id: z.number().int(),
    name: z.string(),
    method: z.string(),
    path: z.string(),
  }),
  status: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const PolicyListResponse = z.object({ data: z.array(PolicyResponse) });

export const toPolicyResponse = (
  row: PolicyRow,
  time: FormatTimestamp,
): z.infer<typeof PolicyResponse> => ({
  id: row.id,
  role: { id: row.role_id, name: row.role_name },
  feature: { id: row.feature_id, name: row.feature_name },
  sub_feature: {
    id: row.sub_feature_id,
    name: row.sub_feature_name,
    method: row.method,
    path: row.path,
  },
  status: row.status,
  created_at: time(row.created_at),
  updated_at: time(row.updated_at),
});
