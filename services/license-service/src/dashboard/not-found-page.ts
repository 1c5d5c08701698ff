/**
 * Unknown paths: a browser gets the dashboard's HTML 404 page (with its navigation when logged
 * in), while anything under `/api/` keeps the license API's JSON shape. Registered last, so
 * every real route matches first.
 */
import { defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { SeedError } from '../routes/api';
import { errorPage } from './page-route';

export function notFoundPage(): RouteDefinition {
  return defineRoute({
    method: 'get',
    path: '/*path',
    summary: 'Any other path: 404 (HTML for the dashboard, JSON under /api/)',
    tags: ['dashboard'],
    responses: {
      404: {
        description: 'No such page',
        contentType: 'text/html',
        schema: z.union([z.string(), SeedError]),
      },
    },
    handler: (_input, req, res) => {
      if (req.path.startsWith('/api/')) {
        res.status(404).json({ success: false, message: `No route for GET ${req.path}` });
        return;
      }
      errorPage(res, new HttpError(404, 'not_found', 'There is no such page.'));
    },
  });
}
