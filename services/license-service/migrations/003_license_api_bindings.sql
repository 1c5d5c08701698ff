-- License API accounts read only the clients they are bound to (GET /api/licenses/{id_client});
-- an account bound to none reads none, unless its role has `api.licenses.all`. Dashboard sign-in
-- needs `dashboard.sign_in`, which API-only roles lack.
alter table admin_users add column api_client_ids uuid[] not null default '{}';

-- An upgrade breaks nothing that worked: roles that manage accounts (the super-admin's) read every
-- client, as a new install's super-admin does; every other account that used the API is bound to
-- every client there is now (an administrator narrows it to its tenant's; clients added later are
-- not included); every role that is not API-only keeps signing in to the dashboard.
update roles set permissions = array_append(permissions, 'api.licenses.all')
 where 'api.licenses' = any(permissions) and 'admins.manage' = any(permissions)
   and not 'api.licenses.all' = any(permissions);

update admin_users a
   set api_client_ids = coalesce((select array_agg(c.id order by c.created_at) from clients c), '{}')
  from roles r
 where r.id = a.role_id and 'api.licenses' = any(r.permissions)
   and not 'api.licenses.all' = any(r.permissions);

update roles set permissions = array_append(permissions, 'dashboard.sign_in')
 where not (permissions <@ array['api.licenses', 'api.licenses.all']::text[]
            and 'api.licenses' = any(permissions));
