-- Shortcut access lists: per role, the ordered shortcuts (name, label, target path) its users see.
create table role_shortcuts (
  id serial primary key,
  role_id integer not null references roles (id) on delete cascade,
  position integer not null,
  name text not null,
  label text not null default '',
  path text not null,
  unique (role_id, position),
  unique (role_id, name)
);
