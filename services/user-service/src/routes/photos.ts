/** PUT /users/:id/photo (multipart, field `photo`) and GET /users/:id/photo. */
import { badRequest, defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import type { RequestHandler } from 'express';
import multer from 'multer';
import { Uuid } from '../schemas/common';
import type { ProfilePhotos } from '../users/profile-photos';
import type { RouteContext } from './route-context';

/** multer with the size limit, its errors turned into the kit's. */
function photoUpload(maxBytes: number): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 0 },
  }).single('photo');
  return function parsePhotoUpload(req, res, next) {
    upload(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') {
          return next(
            new HttpError(413, 'payload_too_large', `The photo exceeds ${maxBytes} bytes`),
          );
        }
        return next(badRequest(`Invalid upload: ${err.message}`));
      }
      next(badRequest('Invalid multipart body'));
    });
  };
}

export function photoRoutes(
  photos: ProfilePhotos,
  { actorOf }: RouteContext,
  maxBytes: number,
): RouteDefinition[] {
  const tags = ['users'];
  return [
    defineRoute({
      method: 'put',
      path: '/users/:id/photo',
      summary: `Upload a profile photo: multipart field \`photo\`, JPEG, PNG or WebP, at most ${maxBytes} bytes`,
      tags,
      before: [photoUpload(maxBytes)],
      request: { params: Uuid },
      responses: {
        204: { description: 'Stored' },
        400: { description: 'No photo in the body' },
        403: { description: 'User not below your level' },
        404: { description: 'No such user' },
        413: { description: 'Photo too large' },
        415: { description: 'Not a JPEG, PNG or WebP image' },
        503: { description: 'Photos are not configured' },
      },
      handler: async ({ params }, req, res) => {
        if (!req.file) throw badRequest('Send the photo as the multipart field `photo`');
        await photos.upload(await actorOf(req), params.id, req.file.buffer);
        res.status(204).end();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/users/:id/photo',
      summary: "A user's profile photo",
      tags,
      request: { params: Uuid },
      responses: {
        200: { description: 'The image', contentType: 'image/*' },
        404: { description: 'No such user or no photo' },
        503: { description: 'Photos are not configured' },
      },
      handler: async ({ params }, _req, res) => {
        const { data, type } = await photos.download(params.id);
        res.status(200).type(type).setHeader('Cache-Control', 'private, max-age=300');
        res.send(data);
      },
    }),
  ];
}
