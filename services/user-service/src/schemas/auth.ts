/** Request and response schemas of the authentication endpoints. */
import { z } from 'zod';
import type { TokenPair } from '../auth/login-sessions';
import type { NewAccount } from '../auth/registration';
import { Email, Name, Password, Username } from './common';

export const LoginBody = z.object({ email: Email, password: z.string().min(1).max(256) });
export const RefreshBody = z.object({ refresh_token: z.string().min(1).max(512) });
export const RegisterBody = z.object({
  email: Email,
  username: Username,
  full_name: Name,
  password: Password,
});
export const toNewAccount = (body: z.infer<typeof RegisterBody>): NewAccount => ({
  email: body.email,
  username: body.username,
  fullName: body.full_name,
  password: body.password,
});
export const ForgotPasswordBody = z.object({ email: Email });
export const VerifyEmailBody = z.object({ token: z.string().min(1).max(512) });
export const ResendVerificationBody = z.object({ email: Email });
export const ResetPasswordBody = z.object({
  token: z.string().min(1).max(512),
  password: Password,
});
export const BearerHeader = z.object({ authorization: z.string().regex(/^Bearer\s+\S+$/i) });

export const TokenPairResponse = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
});
export const toTokenPairResponse = (pair: TokenPair): z.infer<typeof TokenPairResponse> => ({
  access_token: pair.accessToken,
  refresh_token: pair.refreshToken,
  token_type: 'Bearer',
  expires_in: pair.expiresInSeconds,
  refresh_expires_in: pair.refreshExpiresInSeconds,
});
export const MessageResponse = z.object({ message: z.string() });
export const PublicKeyResponse = z.object({
  algorithm: z.literal('ES256'),
  issuer: z.string(),
  pem: z.string(),
  jwk: z.record(z.string(), z.unknown()),
});
