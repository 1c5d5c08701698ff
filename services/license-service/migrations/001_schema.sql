-- Seed 001 D: clients, their licenses and secret-store mappings; the dashboard's accounts with
-- roles of their own; login sessions; the activity log of every change.

create table roles (
  id uuid primary key,
  name text not null unique,
  -- Permission names (see src/admins/permissions.ts); checked on every dashboard request.
  permissions text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table admin_users (
  id uuid primary key,
  name text not null,
  email text not null,
  password_hash text not null,
  role_id uuid not null references roles (id),
  is_active boolean not null default true,
  -- TOTP second factor: the shared secret (base32) once enrolled, the last time step used (a
  -- code is accepted once), one-time recovery codes as hashes.
  totp_secret text,
  totp_last_step bigint,
  recovery_code_hashes text[] not null default '{}',
  -- Failed-attempt limit of the dashboard login and the Basic API.
  failed_attempts integer not null default 0,
  locked_until timestamptz,
  last_login_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index admin_users_email on admin_users (lower(email));

create table clients (
  id uuid primary key,
  name text not null,
  company_name text not null default '',
  email text not null default '',
  phone text not null default '',
  address text not null default '',
  is_active boolean not null default true,
  max_user integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table licenses (
  id uuid primary key,
  client_id uuid not null references clients (id) on delete cascade,
  license_name text not null,
  serial_number text not null default '',
  qty integer not null default 1,
  installed_in text not null default '',
  binded_in text not null default '',
  status boolean not null default true,
  activated_date timestamptz,
  expired_date timestamptz,
  module text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index licenses_client on licenses (client_id);
create index licenses_activated on licenses (activated_date desc nulls last);

create table secret_mappings (
  id uuid primary key,
  client_ref uuid not null references clients (id) on delete cascade,
  type text not null,
  project_id text not null,
  client_id text not null,
  client_secret text not null,
  client_env text not null,
  path text not null default '/',
  branch_source text not null default '',
  -- The GitLab pipeline trigger token of a `frontend` mapping, created once and reused.
  trigger_token text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index secret_mappings_client on secret_mappings (client_ref);

create table sessions (
  -- sha256 of the cookie value: a database read does not hand out live sessions.
  id_hash text primary key,
  admin_id uuid not null references admin_users (id) on delete cascade,
  -- 'password': the first factor passed, TOTP (or enrolment) still due; 'full': logged in.
  stage text not null check (stage in ('password', 'full')),
  csrf_token text not null,
  -- A secret being enrolled, until its first code is verified.
  pending_totp_secret text,
  totp_failures integer not null default 0,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_admin on sessions (admin_id);

create table activity_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor_id uuid,
  actor_email text,
  -- e.g. client.create, license.update, mapping.delete, secrets.save, admin.login
  action text not null,
  entity_type text not null,
  entity_id text,
  -- [{field, before, after}], secrets masked (the kit's describeChanges)
  changes jsonb not null default '[]',
  ip text
);
create index activity_log_at on activity_log (at desc);
create index activity_log_entity on activity_log (entity_type, entity_id);
