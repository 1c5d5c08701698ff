/**
 * The dashboard's own permissions (separate from the user service's roles): each page and each
 * form checks one. Roles are named sets of them, edited on the roles page.
 */
export const PERMISSIONS = {
  'clients.read': 'See clients, licenses and mappings',
  'clients.write': 'Create, edit and delete clients, licenses and mappings',
  'secrets.read': "Open a mapping's environment page (secret values)",
  'secrets.write': "Save a mapping's secrets (and trigger its pipeline)",
  'admins.manage': 'Manage dashboard accounts and roles',
  'activity.read': 'Read the activity log',
  'api.licenses': 'Use the license API (GET /api/licenses/{id_client}) with Basic credentials',
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
      'clients.read',
      'clients.write',
      'secrets.read',
      'secrets.write',
      'activity.read',
    ],
  },
  { name: 'viewer', permissions: ['clients.read', 'activity.read'] },
  { name: 'license-api', permissions: ['api.licenses'] },
];
