-- Who may use each knowledge resource of a workspace (documents, folders, topics, audios,
-- databases, APIs). Members with `knowledge.all` see everything; everyone else only what lists
-- them. The creator of a resource is put on its list.
create table resource_access (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  resource_type text not null
    check (resource_type in ('document', 'folder', 'topic', 'audio', 'database', 'api')),
  resource_id uuid not null,
  user_id text not null references users (id) on delete cascade,
  primary key (resource_type, resource_id, user_id)
);
create index resource_access_by_user on resource_access (workspace_id, user_id, resource_type);
