/** User schemas and the row → response mapper (never the password hash). */
import { z } from 'zod';
import type { UserRow } from '../users/user-repository';
import type { FormatTimestamp } from '../timestamps';
import { Email, Name, Password, Timestamp, Username } from './common';

export const CreateUserBody = z.object({
  email: Email,
  username: Username,
  full_name: Name,
  password: Password,
  role_id: z.number().int().positive().max(2_147_483_647),
});
export const UpdateUserBody = z
  .object({
    email: Email,
    username: Username,
    full_name: Name,
    role_id: z.number().int().positive().max(2_147_483_647),
    is_active: z.boolean(),
  })
  .partial();

export const UserResponse = z.object({
  id: z.string(),
  email: z.string(),
  username: z.string(),
  full_name: z.string(),
  is_active: z.boolean(),
  /** Path of the profile photo, null when there is none. */
  photo_url: z.string().nullable(),
  role: z.object({ id: z.number().int(), name: z.string(), level: z.number().int() }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const UserListResponse = z.object({
  data: z.array(UserResponse),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

export const toUserResponse = (
  row: UserRow,
  time: FormatTimestamp,
): z.infer<typeof UserResponse> => ({
  id: row.id,
  email: row.email,
  username: row.username,
  full_name: row.full_name,
  is_active: row.is_active,
  photo_url: row.photo_key ? `/users/${row.id}/photo` : null,
  role: { id: row.role_id, name: row.role_name, level: row.role_level },
  created_at: time(row.created_at),
  updated_at: time(row.updated_at),
});
