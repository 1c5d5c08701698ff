/**
 * Profile photos: JPEG, PNG or WebP, recognised by their first bytes (the client's content type
 * is not trusted), stored in S3 under a fresh key per upload; the previous object is removed.
 * A user changes their own photo, or that of a user below their level.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, errorMessage, notFound, type Logger } from '@pelita/kit';
import type { ObjectStore } from '@pelita/kit/object-store';
import { assertManagesUser, type Actor } from '../actor';
import type { UserRepository } from './user-repository';

const SIGNATURES: Array<{ type: string; matches: (b: Buffer) => boolean }> = [
  {
    type: 'image/jpeg',
    matches: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  },
  {
    type: 'image/png',
    matches: (b) =>
      b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  {
    type: 'image/webp',
    matches: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' &&
      b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

export function detectImageType(data: Buffer): string | undefined {
  return SIGNATURES.find((signature) => signature.matches(data))?.type;
}

/** The S3 bucket of the photos (`S3_BUCKET`), or none: photos are then off (503). */
type PhotoStore = Pick<ObjectStore, 'put' | 'get' | 'remove'>;

export function createProfilePhotos(
  store: PhotoStore | undefined,
  users: UserRepository,
  logger: Logger,
) {
  function configured(): PhotoStore {
    if (!store) throw new HttpError(503, 'photos_unavailable', 'Profile photos are not configured');
    return store;
  }
  return {
    async upload(actor: Actor, userId: string, data: Buffer): Promise<void> {
      const photos = configured();
      const user = await users.find(userId);
      if (!user) throw notFound(`User ${userId} not found`);
      if (user.id !== actor.id) assertManagesUser(actor, user.roleLevel);
      const type = detectImageType(data);
      if (!type) {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'The photo must be a JPEG, PNG or WebP image',
        );
      }
      const key = `users/${user.id}/photo-${randomUUID()}`;
      await photos.put(key, data, type);
      const previous = await users.setPhoto(user.id, key, type);
      if (previous) {
        await photos
          .remove(previous)
          .catch((err: unknown) =>
            logger.warn({ err: errorMessage(err) }, 'while removing a replaced profile photo'),
          );
      }
    },
    async download(userId: string): Promise<{ data: Buffer; type: string }> {
      const photos = configured();
      const user = await users.find(userId);
      if (!user?.photoKey || !user.photoType) throw notFound('This user has no profile photo');
      return { data: await photos.get(user.photoKey), type: user.photoType };
    },
  };
}

export type ProfilePhotos = ReturnType<typeof createProfilePhotos>;
