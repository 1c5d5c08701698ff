/** The pages of clients, their licenses and mappings, accounts and roles (see resource-pages.ts). */
import { HttpError, type PasswordHasher, type RouteDefinition } from '@pelita/kit';
import type { Pool } from 'pg';
import {
  accountForm,
  accountRecord,
  adminTable,
  listRoles,
  publicAccount,
  roleForm,
  roleInUse,
  roleTable,
} from '../admins/accounts';
import { PERMISSIONS } from '../admins/permissions';
import type { SessionStore } from '../auth/session-store';
import type { SecretSeal } from '../store/stored-secret';
import { clientForm, clientRecordCounts, clientTable, unknownClientIds } from '../records/clients';
import type { FieldErrors } from '../records/form-input';
import { licenseForm, licenseTable } from '../records/licenses';
import { createManagedRecords } from '../records/managed-records';
import {
  MAPPING_TYPES,
  mappingForm,
  mappingRecord,
  mappingTable,
  withoutSecrets,
} from '../records/mappings';
import { html } from './html';
import { layout } from './layout';
import { dateColumn, flagColumn, timeColumn, yesNo } from './list-view';
import { pageRoute, type PageEnvironment } from './page-route';
import { resourcePages } from './resource-pages';

export function recordPages(
  env: PageEnvironment & {
    pool: Pool;
    sessions: SessionStore;
    seal: SecretSeal;
    hasher: Pick<PasswordHasher, 'hash'>;
  },
): RouteDefinition[] {
  const { pool } = env;
  const clientRecords = createManagedRecords(pool, clientTable, 'client');
  const pages = { ...env, clients: clientRecords };

  const clients = resourcePages(pages, {
    noun: 'client',
    plural: 'clients',
    records: clientRecords,
    read: 'clients.read',
    write: 'clients.write',
    columns: [
      {
        key: 'name',
        label: 'Name',
        sortable: true,
        render: (row) => html`<a href="/clients/${row.id}">${String(row.name)}</a>`,
      },
      { key: 'company_name', label: 'Company', sortable: true },
      { key: 'email', label: 'E-mail', sortable: true },
      flagColumn('is_active', 'Active'),
      { key: 'max_user', label: 'Max users', sortable: true },
    ],
    fields: () => [
      { name: 'name', label: 'Name', required: true },
      { name: 'company_name', label: 'Company name' },
      { name: 'email', label: 'E-mail', type: 'email' },
      { name: 'phone', label: 'Phone' },
      { name: 'address', label: 'Address', type: 'textarea' },
      { name: 'max_user', label: 'Maximum users', type: 'number', hint: 'Empty: no limit' },
      { name: 'is_active', label: 'Active', type: 'checkbox' },
    ],
    form: () => clientForm,
  });

  const licenses = resourcePages(pages, {
    noun: 'license',
    plural: 'licenses',
    underClient: true,
    records: createManagedRecords(pool, licenseTable, 'license'),
    read: 'clients.read',
    write: 'clients.write',
    columns: [
      { key: 'license_name', label: 'License', sortable: true },
      { key: 'serial_number', label: 'Serial number', sortable: true },
      { key: 'qty', label: 'Qty', sortable: true },
      flagColumn('status', 'Active'),
      dateColumn('activated_date', 'Activated'),
      dateColumn('expired_date', 'Expires'),
      { key: 'module', label: 'Module' },
    ],
    fields: () => [
      { name: 'license_name', label: 'License name', required: true },
      { name: 'serial_number', label: 'Serial number' },
      { name: 'qty', label: 'Quantity', type: 'number', required: true },
      { name: 'installed_in', label: 'Installed in' },
      { name: 'binded_in', label: 'Bound to' },
      { name: 'module', label: 'Module' },
      { name: 'activated_date', label: 'Activated on', type: 'date' },
      { name: 'expired_date', label: 'Expires on', type: 'date' },
      { name: 'status', label: 'Active (unticked: suspended)', type: 'checkbox' },
    ],
    form: () => licenseForm,
  });

  const mappings = resourcePages(pages, {
    noun: 'mapping',
    plural: 'mappings',
    underClient: true,
    records: createManagedRecords(pool, mappingTable, 'mapping'),
    read: 'clients.read',
    write: 'clients.write',
    columns: [
      { key: 'type', label: 'Type', sortable: true },
      { key: 'project_id', label: 'Project', sortable: true },
      { key: 'client_env', label: 'Environment', sortable: true },
      { key: 'path', label: 'Path', sortable: true },
      { key: 'branch_source', label: 'Branch', sortable: true },
    ],
    rowActions: (row) =>
      html` <a href="/infisical-env?id=${row.id}"
        >Secrets<span class="visually-hidden"> of ${String(row.project_id)}</span></a
      >`,
    fields: (creating) => [
      {
        name: 'type',
        label: 'Type',
        type: 'select',
        required: true,
        options: MAPPING_TYPES.map((t) => ({ value: t, label: t })),
        hint: 'frontend: saving its secrets runs the pipeline of its branch',
      },
      { name: 'project_id', label: 'Infisical project ID', required: true },
      {
        name: 'client_env',
        label: 'Environment slug',
        required: true,
        hint: 'e.g. dev, staging, prod',
      },
      { name: 'path', label: 'Secret path', required: true },
      { name: 'client_id', label: 'Machine identity client ID', required: true },
      {
        name: 'client_secret',
        label: 'Machine identity client secret',
        type: 'password',
        required: creating,
        ...(creating ? {} : { hint: 'Empty: keep the stored secret' }),
      },
      { name: 'branch_source', label: 'Branch (frontend)' },
    ],
    form: mappingForm,
    toRecord: (values) => Promise.resolve(mappingRecord(values, env.seal)),
    shown: withoutSecrets,
  });

  const roleOptions = async () =>
    (await listRoles(pool)).map((r) => ({ value: r.id, label: r.name }));
  const admins = resourcePages(pages, {
    noun: 'account',
    plural: 'admins',
    uniqueField: 'email',
    records: createManagedRecords(pool, adminTable, 'admin'),
    read: 'admins.manage',
    write: 'admins.manage',
    columns: [
      { key: 'name', label: 'Name', sortable: true },
      { key: 'email', label: 'E-mail', sortable: true },
      flagColumn('is_active', 'Active'),
      {
        key: 'totp_secret',
        label: 'Second factor',
        render: (row) => (row.totp_secret ? 'Enrolled' : 'Not yet'),
      },
      timeColumn('last_login_at', 'Last login'),
    ],
    fields: async (creating) => [
      { name: 'name', label: 'Name', required: true },
      { name: 'email', label: 'E-mail', type: 'email', required: true },
      {
        name: 'role_id',
        label: 'Role',
        type: 'select',
        required: true,
        options: await roleOptions(),
      },
      {
        name: 'password',
        label: creating ? 'Password' : 'New password',
        type: 'password',
        required: creating,
        hint: creating ? 'At least 12 characters' : 'Empty: keep the password',
      },
      { name: 'is_active', label: 'Active', type: 'checkbox' },
      {
        name: 'api_client_ids',
        label: 'License API clients',
        type: 'textarea',
        hint: "IDs of the clients this account reads through the license API, one per line (a client's page shows its ID). Empty: none, unless its role has api.licenses.all.",
      },
      ...(creating
        ? []
        : [
            {
              name: 'reset_totp',
              label: 'Reset the second factor (enrols again at the next login)',
              type: 'checkbox' as const,
            },
          ]),
    ],
    form: accountForm,
    toRecord: (values, creating) => accountRecord(values, creating, env.hasher),
    shown: (row) => publicAccount(row),
    afterChange: async (_ctx, before, after) => {
      // A changed password, a deactivation, a reset second factor or a deletion ends every
      // session of the account (one's own too: log in again with the new password).
      const ended =
        !after ||
        !after.is_active ||
        before?.password_hash !== after.password_hash ||
        before?.totp_secret !== after.totp_secret;
      if (before && ended) await env.sessions.destroyAllOf(before.id);
    },
    // An administrator cannot lock themself out: not by deactivating their own account, nor by
    // giving it a role without account management.
    check: async (ctx, values, row): Promise<FieldErrors | null> => {
      const unknown = await unknownClientIds(pool, values.api_client_ids as string[]);
      if (unknown.length) return { api_client_ids: `No such client: ${unknown.join(', ')}` };
      if (!row || row.id !== ctx.account?.id) return null;
      if (!values.is_active) return { is_active: 'You cannot deactivate your own account.' };
      const role = (await listRoles(pool)).find((r) => r.id === values.role_id);
      if (!role?.permissions.includes('admins.manage')) {
        return { role_id: 'Your own role must keep the permission to manage accounts.' };
      }
      return null;
    },
    refuseDelete: (ctx, row) =>
      Promise.resolve(row.id === ctx.account?.id ? 'You cannot delete your own account.' : null),
  });

  const roles = resourcePages(pages, {
    noun: 'role',
    plural: 'roles',
    uniqueField: 'name',
    records: createManagedRecords(pool, roleTable, 'role'),
    read: 'admins.manage',
    write: 'admins.manage',
    columns: [
      { key: 'name', label: 'Name', sortable: true },
      {
        key: 'permissions',
        label: 'Permissions',
        render: (row) => (row.permissions as string[]).join(', '),
      },
    ],
    fields: () => [
      { name: 'name', label: 'Name', required: true },
      {
        name: 'permissions',
        label: 'Permissions',
        type: 'checkboxes',
        options: Object.entries(PERMISSIONS).map(([value, label]) => ({ value, label })),
      },
    ],
    form: () => roleForm,
    refuseDelete: async (_ctx, row) =>
      (await roleInUse(pool, row.id))
        ? 'Accounts still have this role: give them another one first.'
        : null,
  });

  const clientDetail = pageRoute(env, {
    method: 'get',
    path: '/clients/:id',
    summary: 'One client with links to its licenses and mappings',
    access: 'clients.read',
    handler: async (ctx) => {
      const client = await clientRecords.get(ctx.params.id ?? '');
      if (!client) throw new HttpError(404, 'not_found', 'No such client');
      const c = await clientRecordCounts(pool, client.id);
      const write = ctx.viewer!.permissions.includes('clients.write');
      const fields: Array<[string, unknown]> = [
        ['ID', client.id],
        ['Company', client.company_name],
        ['E-mail', client.email],
        ['Phone', client.phone],
        ['Address', client.address],
        ['Active', yesNo(client.is_active)],
        ['Maximum users', client.max_user ?? 'no limit'],
      ];
      const body = html`<p>
          <a href="/clients">Back to the clients</a
          >${write ? html` · <a href="/clients/${client.id}/edit">Edit this client</a>` : ''}
        </p>
        <dl class="card">
          ${fields.map(
            ([k, v]) =>
              html`<dt>${k}</dt>
                <dd>${String(v as string)}</dd>`,
          )}
        </dl>
        <ul class="links">
          <li><a href="/clients/${client.id}/licenses">Licenses (${c.licenses})</a></li>
          <li>
            <a href="/clients/${client.id}/mappings">Secret-store mappings (${c.mappings})</a>
          </li>
          <li><a href="/activity?entity_id=${client.id}">Activity of this client</a></li>
        </ul>`;
      return {
        html: layout({
          title: `Client ${String(client.name)}`,
          viewer: ctx.viewer,
          body,
          current: '/clients',
        }),
      };
    },
  });

  // The detail route last: `/clients/new` must match the new-client form first.
  return [...clients, ...licenses, ...mappings, ...admins, ...roles, clientDetail];
}
