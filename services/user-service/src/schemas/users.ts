/** User schemas and the mappers between them and the service's {@link User} (never the password hash). */
import { z } from 'zod';
import type { NewUserInput, User, UserChanges } from '../users/user-repository';
import type { UpdatedUser } from '../users/users';
import type { FormatTimestamp } from '../timestamps';
import { Email, Name, Password, Timestamps, Username, pageOf, toTimestamps } from './common';

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
    /** Required to change one's own e-mail. */
    current_password: z.string().min(1).max(1024).meta({
      description: 'Your current password: required to change your own e-mail',
    }),
  })
  .partial();

export const UserResponse = z.object({
  id: z.string(),
  email: z.string(),
  username: z.string(),
  full_name: z.string(),
  is_active: z.boolean(),
  /** False while a self-registered account waits for its owner to follow the mailed link. */
  email_verified: z.boolean(),
  /** Path of the profile photo, null when there is none. */
  photo_url: z.string().nullable(),
  role: z.object({ id: z.number().int(), name: z.string(), level: z.number().int() }),
  ...Timestamps,
});
/** The answer of a change: your own new address is not the account's until its link is followed. */
export const UpdatedUserResponse = UserResponse.extend({
  pending_email: z.string().optional().meta({
    description:
      'Your own new e-mail address, waiting for the link mailed to it to be followed; `email` is still the old one',
  }),
});
export const UserListResponse = pageOf(UserResponse);

// The API speaks snake_case, the service camelCase: these are the only crossings.

export const toNewUser = (body: z.infer<typeof CreateUserBody>): NewUserInput => ({
  email: body.email,
  username: body.username,
  fullName: body.full_name,
  password: body.password,
  roleId: body.role_id,
});

export const toUserChanges = (body: z.infer<typeof UpdateUserBody>): UserChanges => ({
  email: body.email,
  username: body.username,
  fullName: body.full_name,
  roleId: body.role_id,
  isActive: body.is_active,
});

export const toUpdatedUserResponse = (
  user: UpdatedUser,
  time: FormatTimestamp,
): z.infer<typeof UpdatedUserResponse> =>
  user.pendingEmail === undefined
    ? toUserResponse(user, time)
    : { ...toUserResponse(user, time), pending_email: user.pendingEmail };

export const toUserResponse = (
  user: User,
  time: FormatTimestamp,
): z.infer<typeof UserResponse> => ({
  id: user.id,
  email: user.email,
  username: user.username,
  full_name: user.fullName,
  is_active: user.isActive,
  email_verified: user.emailVerified,
  photo_url: user.photoKey ? `/users/${user.id}/photo` : null,
  role: { id: user.roleId, name: user.roleName, level: user.roleLevel },
  ...toTimestamps(user, time),
});
