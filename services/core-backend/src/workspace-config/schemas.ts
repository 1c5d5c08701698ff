/** Shapes of system prompts and workspace models. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import type { WorkspaceModel } from './workspace-models';
import { Name, pageOf, Paging } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

const PromptType = z.enum(['persistent', 'report', 'custom']);
export const PromptParams = z.object({ workspaceId: z.uuid(), promptId: z.uuid() });
export const PromptQuery = Paging.extend({ type: PromptType.optional() });
export const PromptBody = z.object({
  name: Name,
  type: PromptType,
  content: storedText().min(1).max(20_000),
  is_default: z.boolean().default(false),
});
export const PromptPatch = PromptBody.partial();
export const PromptResponse = z.object({
  id: z.string(),
  name: z.string(),
  type: PromptType,
  content: z.string(),
  is_default: z.boolean(),
  ...Made,
});
export const PromptList = pageOf(PromptResponse);
export const toPromptResponse = responseOf(PromptResponse);

export const ModelParams = z.object({ workspaceId: z.uuid(), modelId: z.uuid() });
const ModelFields = {
  name: Name,
  model: storedText().trim().min(1).max(200),
  /** The workspace's own OpenAI-compatible server (http/https, ending before `/chat`); null: the install's. */
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .transform((url) => url.replace(/\/+$/, ''))
    .nullable(),
  /** Write-only: stored sealed, never returned (`has_api_key`). null removes it. */
  // Sent as an HTTP header: visible ASCII only (anything else could never be sent).
  api_key: z
    .string()
    .min(1)
    .max(4000)
    .regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only (it travels in a header)')
    .nullable()
    .optional(),
  context_window: z.number().int().min(512).max(10_000_000).nullable(),
  is_default: z.boolean(),
};
export const ModelBody = z.object({
  ...ModelFields,
  base_url: ModelFields.base_url.default(null),
  context_window: ModelFields.context_window.default(null),
  is_default: ModelFields.is_default.default(false),
});
/**
 * Only what is given, without the defaults: zod 4 applies a default inside `.partial()`, which
 * turned every PATCH into one that moved the model to the install's server (base_url null).
 */
export const ModelPatch = z.object(ModelFields).partial();
export const ModelResponse = z.object({
  id: z.string(),
  name: z.string(),
  model: z.string(),
  base_url: z.string().nullable(),
  has_api_key: z.boolean(),
  context_window: z.number().int().nullable(),
  is_default: z.boolean(),
  ...Made,
});
export const ModelList = pageOf(ModelResponse);
export const ModelCheck = z.object({ available: z.boolean(), server_models: z.array(z.string()) });
export const toModelResponse = responseOf(ModelResponse, (m: WorkspaceModel) => ({
  has_api_key: m.api_key_sealed !== null,
}));
