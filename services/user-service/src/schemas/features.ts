/** Feature and sub-feature schemas and mappers. */
import { z } from 'zod';
import type { Feature, SubFeature } from '../access/access-repository';
import type { FormatTimestamp } from '../timestamps';
import { Label, Name, Timestamps, toTimestamps } from './common';

export const FeatureBody = z.object({ name: Name, label: Label });
export const FeatureSubFeatureParams = z.object({
  featureId: z.coerce.number().int().positive().max(2_147_483_647),
  id: z.coerce.number().int().positive().max(2_147_483_647),
});
export const FeatureParams = z.object({
  featureId: z.coerce.number().int().positive().max(2_147_483_647),
});

const Method = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']));
/** A path pattern: `*` matches one path segment, `**` any number. */
const PathPattern = z
  .string()
  .min(1)
  .max(500)
  .regex(/^(\/|\*\*)\S*$/, 'a path starting with / (or **), without spaces');
export const SubFeatureBody = z.object({
  name: Name,
  label: Label,
  method: Method,
  path: PathPattern,
});

export const FeatureResponse = z.object({
  id: z.number().int(),
  name: z.string(),
  label: z.string(),
  ...Timestamps,
});
export const SubFeatureResponse = z.object({
  id: z.number().int(),
  feature_id: z.number().int(),
  name: z.string(),
  label: z.string(),
  method: z.string(),
  path: z.string(),
  ...Timestamps,
});
export const FeatureListResponse = z.object({ data: z.array(FeatureResponse) });
export const SubFeatureListResponse = z.object({ data: z.array(SubFeatureResponse) });

export const toFeatureResponse = (row: Feature, time: FormatTimestamp) => ({
  id: row.id,
  name: row.name,
  label: row.label,
  ...toTimestamps(row, time),
});
export const toSubFeatureResponse = (row: SubFeature, time: FormatTimestamp) => ({
  id: row.id,
  feature_id: row.featureId,
  name: row.name,
  label: row.label,
  method: row.method,
  path: row.path,
  ...toTimestamps(row, time),
});
