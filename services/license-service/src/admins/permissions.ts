/**
 * The dashboard's own permissions (separate from the user service's roles): each page and each
 * form checks one. Roles are named sets of them, edited on the roles page.
 */
export const PERMISSIONS = {
  'dashboard.sign_in':
    'Sign in to the dashboard (without it the account can only use the license API)',
  'clients.read': 'See clients, licenses and mappings',
  'clients.write': 'Create, edit and delete clients, licenses and mappings',
  'secrets.read': "Open a mapping's environment page (secret values)",
  'secrets.write': "Save a mapping's secrets (and trigger its pipeline)",
  'admins.manage': 'Manage dashboard accounts and roles',
  'activity.read': 'Read the activity log',
  'api.licenses':
    "Use the license API (GET /api/licenses/{id_client}) with Basic credentials, for the account's own clients",
  'api.licenses.all':
    'Read every client through the license API, not only those the account is bound to',
} as const;

export type Permission = keyof typeof PERMISSIONS;

const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export const isPermission = (name: string): name is Permission => name in PERMISSIONS;

/** Roles made by the first migration's start-up; editable afterwards. */
export const BUILTIN_ROLES: Array<{ name: string; permissions: Permission[] }> = [
  { name: 'super-admin', permissions: ALL_PERMISSIONS },
  {
    name: 'operator',
    permissions: [
      'dashboard.sign_in',
      'clients.read',
      'clients.write',
      'secrets.read',
      'secrets.write',
      'activity.read',
    ],
  },
  { name: 'viewer', permissions: ['dashboard.sign_in', 'clients.read', 'activity.read'] },
  { name: 'license-api', permissions: ['api.licenses'] },
];

/** API-only accounts (the `license-api` role) use the license API and never the dashboard. */
export const maySignIn = (permissions: readonly string[]): boolean =>
  permissions.includes('dashboard.sign_in');

/** The clients an account reads through the license API: its own, or every one with `.all`. */
export const mayReadClient = (
  account: { permissions: readonly string[]; api_client_ids: readonly string[] },
  clientId: string,
): boolean =>
  account.permissions.includes('api.licenses') &&
  (account.permissions.includes('api.licenses.all') ||
    account.api_client_ids.includes(clientId.toLowerCase()));
