/** Shapes of workspace integrations (messaging bridges) and iframes (the chat widget). */
import { z } from 'zod';
import { Name, pageOf, Timestamp } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

export const IntegrationParams = z.object({ workspaceId: z.uuid(), integrationId: z.uuid() });
/** A secret sent or compared as text: visible ASCII only. */
const VisibleSecret = z
  .string()
  .min(1)
  .max(4000)
  .regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only (it travels in a header)');

/** A verify token travels in the handshake's query string: kept short. */
export const VERIFY_TOKEN_MAX = 200;

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
  access_token: VisibleSecret,
  /**
   * What Meta's webhook needs (write-only, sealed): the app secret its requests are signed with
   * (`X-Hub-Signature-256`), and the verify token typed into its dashboard for the handshake.
   */
  app_secret: VisibleSecret.optional(),
  verify_token: VisibleSecret.max(VERIFY_TOKEN_MAX).optional(),
  /** The app key the integration answers as: it answers only from the key's sources. */
  app_key_id: z.uuid().optional(),
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
  app_key_id: z.string().nullable(),
  /** Whether Meta's webhook is answered: an app secret, a verify token and a live app key set. */
  receiving: z.boolean(),
  /** The callback URL's path to give Meta's dashboard (after this service's public address). */
  webhook_path: z.string(),
  ...Made,
});
export const IntegrationList = pageOf(IntegrationResponse);
export const toIntegrationResponse = responseOf(
  IntegrationResponse,
  (row: { id: string; receiving: boolean }) => ({
    receiving: row.receiving,
    webhook_path: `/webhooks/whatsapp/${row.id}`,
  }),
);

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
