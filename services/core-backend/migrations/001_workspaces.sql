-- Users as the core backend shows them: copied from the user service (update-user-name) and
-- from the access token of each request.
create table users (
  id text primary key,
  username text not null,
  full_name text not null default '',
  updated_at timestamptz not null default now()
);

-- Workspace roles: what a member may do in a workspace. The built-in three cannot be changed.
create table workspace_roles (
  name text primary key,
  description text not null default '',
  permissions text[] not null,
  builtin boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

insert into workspace_roles (name, description, permissions, builtin) values
  ('owner', 'Everything in the workspace, members and every resource included',
   array['workspace.manage', 'members.manage', 'knowledge.write', 'knowledge.read', 'knowledge.all', 'chat'], true),
  ('editor', 'Adds and changes knowledge; uses what is shared with them',
   array['knowledge.write', 'knowledge.read', 'chat'], true),
  ('viewer', 'Uses the knowledge shared with them and chats',
   array['knowledge.read', 'chat'], true);

create table workspaces (
  id uuid primary key,
  name text not null,
  description text not null default '',
  -- Per-workspace settings (retrieval, chat); keys and defaults in src/workspaces/workspace-settings.ts.
  settings jsonb not null default '{}',
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table workspace_users (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null references workspace_roles (name),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index workspace_users_by_user on workspace_users (user_id);

-- Application keys of the open API: only a SHA-256 digest of the secret is kept.
create table app_keys (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  prefix text not null unique,
  secret_hash bytea not null,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index app_keys_by_workspace on app_keys (workspace_id);
