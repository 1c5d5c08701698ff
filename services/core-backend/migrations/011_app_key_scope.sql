-- What an app key (and the widget made with it) may answer from: the documents, folders, topics
-- and audios its owner chose. A key without sources answers from nothing; keys made before this
-- migration start without any (their owners choose, see the CHANGELOG).
create table app_key_sources (
  app_key_id uuid not null references app_keys (id) on delete cascade,
  source_type text not null check (source_type in ('document', 'folder', 'topic', 'audio')),
  source_id uuid not null,
  primary key (app_key_id, source_type, source_id)
);

-- Other keys of the workspace whose sessions this key may read through the history open API.
alter table app_keys add column reads_sessions_of uuid[] not null default '{}';

-- Whether a widget's anonymous visitors see the passages' text (titles only otherwise).
alter table workspace_iframes add column show_passages boolean not null default false;
