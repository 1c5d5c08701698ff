-- Room chats and their chat histories (the seed's chat message records). A room is one chat
-- session: rooms made in the app have their id as `session_id` and a user; the open API makes a
-- room per `X-SESSION-ID` it is given, without a user. The two never meet: an app key reaches
-- only rooms without a user, whatever session id it names.
create table room_chats (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  session_id text not null,
  -- The room's user; rooms of the open API belong to the app key's workspace, not to a user.
  user_id text references users (id) on delete cascade,
  app_key_id uuid references app_keys (id) on delete set null,
  name text not null,
  -- Knowledge the room's answers use: [{type, topic_id: [...]}] as in the seed's records.
  knowledge_sources jsonb not null default '[]',
  model text,
  -- Messages so far, and the last sequence number given (both under the room's row lock).
  message_count integer not null default 0,
  last_seq bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique nulls not distinct (workspace_id, user_id, session_id)
);
create index room_chats_by_user on room_chats (workspace_id, user_id, updated_at desc);

create table chat_histories (
  id uuid primary key,
  room_id uuid not null references room_chats (id) on delete cascade,
  workspace_id uuid not null,
  session_id text not null,
  -- Position in the session, given in commit order under the room's row lock: a cursor over it
  -- never skips a message that commits late.
  seq bigint not null,
  chat text not null,
  response text not null default '',
  llm text not null default '',
  "like" boolean not null default false,
  dislike boolean not null default false,
  knowledge_source_detail jsonb not null default '[]',
  -- `answering` while the answer streams, `complete`, `partial` (the model failed mid-answer:
  -- what came is kept), `failed` (nothing came).
  status text not null default 'complete'
    check (status in ('answering', 'complete', 'partial', 'failed')),
  error text,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  check (not ("like" and dislike)),
  unique (room_id, seq)
);
-- Pages of a session newest first read ids from this index alone (index-only scan), then fetch
-- only the page's rows: page 30 costs about what page 1 does.
create index chat_histories_page on chat_histories (room_id, seq desc) include (id);
-- Dashboard: messages per day of a workspace.
create index chat_histories_by_workspace_day on chat_histories (workspace_id, created_at);
