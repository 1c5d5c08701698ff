/** Policy schemas and mapper: a role's grant of a sub-feature, with its status. */
import { z } from 'zod';
import type { Policy } from '../access/access-repository';
import type { PolicyInput } from '../access/policies';
import type { FormatTimestamp } from '../timestamps';
import { Timestamps, toTimestamps } from './common';

const Id = z.number().int().positive().max(2_147_483_647);
export const GrantBody = z.object({
  role_id: Id,
  sub_feature_id: Id,
  status: z.boolean().default(true),
});
export const toPolicyInput = (body: z.infer<typeof GrantBody>): PolicyInput => ({
  roleId: body.role_id,
  subFeatureId: body.sub_feature_id,
  status: body.status,
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
  ...Timestamps,
});
export const PolicyListResponse = z.object({ data: z.array(PolicyResponse) });

export const toPolicyResponse = (
  row: Policy,
  time: FormatTimestamp,
): z.infer<typeof PolicyResponse> => ({
  id: row.id,
  role: { id: row.roleId, name: row.roleName },
  feature: { id: row.featureId, name: row.featureName },
  sub_feature: {
    id: row.subFeatureId,
    name: row.subFeatureName,
    method: row.method,
    path: row.path,
  },
  status: row.status,
  ...toTimestamps(row, time),
});
