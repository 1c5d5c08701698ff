-- What a workspace is configured with: its system prompts and the models it may use.
create table system_prompts (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  -- `persistent`: put before every chat of the workspace; `report`: generates reports;
  -- `custom`: kept for people to pick.
  type text not null check (type in ('persistent', 'report', 'custom')),
  content text not null,
  is_default boolean not null default false,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);
-- At most one default per type and workspace.
create unique index system_prompts_one_default on system_prompts (workspace_id, type) where is_default;

create table workspace_models (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- What people see.
  name text not null,
  -- The id sent to the model server (and listed by the open API's /models).
  model text not null,
  -- An OpenAI-compatible server of the workspace's; null: the install's (BASE_URL_LOCAL).
  base_url text,
  -- Sealed with ENCRYPTION_KEY (src/crypto/secret-box.ts); never returned.
  api_key_sealed text,
  context_window integer,
  is_default boolean not null default false,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, model)
);
create unique index workspace_models_one_default on workspace_models (workspace_id) where is_default;
