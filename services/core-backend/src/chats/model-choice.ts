/**
 * Which model answers a room: the room's model id on the install's model server, else the
 * install's model (`MODEL_LOCAL` on `BASE_URL_LOCAL`). Neither configured: 503.
 */
import { HttpError } from '@pelita/kit';
import type { ResolveModel } from './answer-pipeline';

export function installModelChoice(
  install: { baseUrl: string; model: string; apiKey: string | undefined } | undefined,
): ResolveModel {
  return (_workspaceId, model) => {
    if (!install) {
      return Promise.reject(
        new HttpError(
          503,
          'model_not_configured',
          'No model server is configured for this install (BASE_URL_LOCAL, MODEL_LOCAL)',
        ),
      );
    }
    return Promise.resolve({
      baseUrl: install.baseUrl,
      apiKey: install.apiKey,
      model: model ?? install.model,
    });
  };
}
