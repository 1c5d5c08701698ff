-- A workspace's integrations (messaging bridges its assistant answers on) and iframes (its
-- embeddable chat widget).
create table workspace_integrations (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- `whatsapp`: the WhatsApp Business Cloud API (Meta's Graph API, or a bridge speaking it).
  type text not null check (type in ('whatsapp')),
  name text not null,
  base_url text not null,
  phone_number_id text not null,
  -- Sealed with ENCRYPTION_KEY (src/crypto/secret-box.ts); never returned.
  access_token_sealed text not null,
  enabled boolean not null default true,
  -- The last check through the bridge: when, and what it said.
  checked_at timestamptz,
  check_ok boolean,
  check_error text,
  display_phone_number text,
  verified_name text,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);

create table workspace_iframes (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  -- Origins (scheme://host[:port]) whose pages may embed the widget.
  allowed_origins text[] not null,
  -- The app key the widget's chats are made with (its workspace's); revoked: the widget stops.
  app_key_id uuid not null references app_keys (id) on delete cascade,
  theme jsonb not null,
  enabled boolean not null default true,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);
