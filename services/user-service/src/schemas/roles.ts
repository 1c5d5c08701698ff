/** Role schemas and the role → response mapper. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import type { Role } from '../roles/role-repository';
import type { FormatTimestamp } from '../timestamps';
import { Name, Timestamps, toTimestamps } from './common';

export const RoleBody = z.object({
  name: Name,
  description: storedText().max(500).default(''),
  level: z.number().int().min(1).max(1_000_000),
});

export const RoleResponse = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  level: z.number().int(),
  ...Timestamps,
});
export const RoleListResponse = z.object({ data: z.array(RoleResponse) });

export const toRoleResponse = (row: Role, time: FormatTimestamp): z.infer<typeof RoleResponse> => ({
  id: row.id,
  name: row.name,
  description: row.description,
  level: row.level,
  ...toTimestamps(row, time),
});
