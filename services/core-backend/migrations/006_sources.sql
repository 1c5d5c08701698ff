-- External data sources a chat can use: databases (text-to-SQL through db-proxy) and HTTP APIs
-- with their endpoints (text-to-API through http-proxy). Credentials are sealed with
-- ENCRYPTION_KEY (src/crypto/secret-box.ts) and never returned.
create table databases (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  description text not null default '',
  engine text not null check (engine in ('postgresql', 'mariadb', 'mysql')),
  host text not null,
  port integer not null check (port between 1 and 65535),
  database_name text not null,
  username text not null,
  password_sealed text,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);

create table apis (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  description text not null default '',
  base_url text not null,
  auth_type text not null check (auth_type in ('none', 'basic', 'bearer', 'jwt')),
  -- basic and jwt: the user; jwt: the login path.
  auth_user text,
  login_path text,
  -- basic and jwt: the password; bearer: the token.
  auth_secret_sealed text,
  -- Headers sent with every call (API keys often ride there): sealed as one JSON object.
  headers_sealed text,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);

create table api_endpoints (
  id uuid primary key,
  api_id uuid not null references apis (id) on delete cascade,
  name text not null,
  description text not null default '',
  method text not null check (method in ('get', 'post', 'put', 'patch', 'delete')),
  path text not null,
  -- [{name, in: query|body, type, required, description}]: what a model may fill in.
  params jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (api_id, name)
);
