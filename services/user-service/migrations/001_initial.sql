-- Users, roles (one per user, hierarchical level), features, sub-features, policies, shortcuts.
create table roles (
  id serial primary key,
  name text not null unique,
  description text not null default '',
  -- 1 is the top; a larger number is lower in the hierarchy.
  level integer not null check (level >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  username text not null unique,
  full_name text not null default '',
  password_hash text not null,
  role_id integer not null references roles (id),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table features (
  id serial primary key,
  name text not null unique,
  label text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table sub_features (
  id serial primary key,
  feature_id integer not null references features (id) on delete cascade,
  name text not null,
  label text not null default '',
  method text not null,
  path text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (feature_id, name)
);

create table policies (
  id serial primary key,
  role_id integer not null references roles (id) on delete cascade,
  sub_feature_id integer not null references sub_features (id) on delete cascade,
  status boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (role_id, sub_feature_id)
);
