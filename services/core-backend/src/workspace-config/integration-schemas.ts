/** Shapes of workspace integrations (messaging bridges) and iframes (the chat widget). */
import { z } from 'zod';
import { Name, pageOf, Timestamp } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

export const IntegrationParams = z.object({ workspaceId: z.uuid(), integrationId: z.uuid() });
export const IntegrationBody = z.object({
  type: z.literal('whatsapp').default('whatsapp'),
  name: Name,
  /** The Graph API with its version (`https://graph.facebook.com/v21.0`), or a bridge speaking it. */
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .transform((url) => url.replace(/\/+$/, '')),
  phone_number_id: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/, "the bridge's phone number id"),
  /** Write-only: stored sealed, never returned. Sent as a header: visible ASCII only. */
  access_token: z
    .string()
    .min(1)
    .max(4000)
    .regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only (it travels in a header)'),
  enabled: z.boolean().default(true),
});
/** Only what is given: zod applies a default inside `.partial()`, which re-enabled on every PATCH. */
export const IntegrationPatch = IntegrationBody.omit({ type: true })
  .extend({ enabled: z.boolean() })
  .partial();
export const IntegrationResponse = z.object({
  id: z.string(),
  type: z.literal('whatsapp'),
  name: z.string(),
  base_url: z.string(),
  phone_number_id: z.string(),
  enabled: z.boolean(),
  /** The last check through the bridge (null: never checked since the connection changed). */
  checked_at: Timestamp.nullable(),
  check_ok: z.boolean().nullable(),
  check_error: z.string().nullable(),
  display_phone_number: z.string().nullable(),
  verified_name: z.string().nullable(),
  ...Made,
});
export const IntegrationList = pageOf(IntegrationResponse);
export const toIntegrationResponse = responseOf(IntegrationResponse);

/** `scheme://host[:port]`, exactly as a browser sends it in `Origin`. */
const Origin = z
  .string()
  .max(500)
  .refine((value) => {
    try {
      const url = new URL(value);
      return /^https?:$/.test(url.protocol) && url.origin === value;
    } catch {
      return false;
    }
  }, 'an origin such as https://intranet.example.com (scheme, host and port only)');

const themeFields = {
  title: z.string().trim().min(1).max(100),
  greeting: z.string().max(500),
  primary_color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #RRGGBB'),
  position: z.enum(['bottom-right', 'bottom-left']),
  dark_mode: z.boolean(),
};
const Theme = z.object({
  title: themeFields.title.default('Assistant'),
  greeting: themeFields.greeting.default('How can I help?'),
  primary_color: themeFields.primary_color.default('#2563eb'),
  position: themeFields.position.default('bottom-right'),
  dark_mode: themeFields.dark_mode.default(false),
});

export const IframeParams = z.object({ workspaceId: z.uuid(), iframeId: z.uuid() });
export const IframeBody = z.object({
  name: Name,
  allowed_origins: z.array(Origin).min(1).max(50),
  app_key_id: z.uuid(),
  theme: Theme.default(Theme.parse({})),
  enabled: z.boolean().default(true),
  /** Whether visitors see the text of the passages an answer used (titles only otherwise). */
  show_passages: z.boolean().default(false),
});
export const IframePatch = z
  .object({
    name: Name,
    allowed_origins: z.array(Origin).min(1).max(50),
    app_key_id: z.uuid(),
    // Merged into the current theme: only what is given changes.
    theme: z.object(themeFields).partial(),
    enabled: z.boolean(),
    show_passages: z.boolean(),
  })
  .partial();
const ThemeResponse = z.object({
  title: z.string(),
  greeting: z.string(),
  primary_color: z.string(),
  position: z.string(),
  dark_mode: z.boolean(),
});
export const IframeResponse = z.object({
  id: z.string(),
  name: z.string(),
  allowed_origins: z.array(z.string()),
  app_key_id: z.string(),
  app_key_prefix: z.string(),
  app_key_active: z.boolean(),
  theme: ThemeResponse,
  enabled: z.boolean(),
  show_passages: z.boolean(),
  ...Made,
});
export const IframeList = pageOf(IframeResponse);
export const toIframeResponse = responseOf(IframeResponse);
export const EmbedParams = z.object({ iframeId: z.uuid() });
export const EmbedConfig = z.object({
  id: z.string(),
  workspace_name: z.string(),
  theme: ThemeResponse,
});
