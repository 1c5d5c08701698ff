/**
 * Seed 001 D: the dashboard blocks `livewire/upload-file` and `livewire/preview-file/*` with 403
 * (file-upload fields do not work). Pelita's dashboard has no upload at all; the paths still
 * answer 403 for every method, so nothing that expects the old behaviour gets a surprise.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { SeedError } from './api';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const PATHS = ['/livewire/upload-file', '/livewire/preview-file/*file'];

export function livewireRoutes(): RouteDefinition[] {
  return PATHS.flatMap((path) =>
    METHODS.map((method) =>
      defineRoute({
        method,
        path,
        summary: 'File upload and preview are blocked (seed: 403)',
        tags: ['dashboard'],
        responses: { 403: { description: 'Always', schema: SeedError } },
        handler: (_input, _req, res) => {
          res
            .status(403)
            .json({ success: false, message: 'File upload is disabled on this dashboard' });
        },
      }),
    ),
  );
}
