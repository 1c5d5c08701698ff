-- Documents of a workspace, their folders, what OCR made of them, their summaries, and topics
-- (named groups of documents a chat can be pointed at).
create table document_folders (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  parent_id uuid references document_folders (id) on delete cascade,
  name text not null,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique nulls not distinct (workspace_id, parent_id, name)
);

create table documents (
  id uuid primary key,
  -- The ocr-service task of the latest processing: the document's id, then `{id}-{n}` for the
  -- n-th re-processing (a task id is never reused). Stored before the task is sent: a restart
  -- never loses the link.
  task_id text not null unique,
  attempt integer not null default 0,
  -- The uploaded original in object storage (`core-documents/{id}`), for re-processing.
  original_key text,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  folder_id uuid references document_folders (id) on delete set null,
  name text not null,
  source text not null check (source in ('upload', 'url')),
  url text,
  size_bytes bigint,
  processing text not null check (processing in ('cloud', 'local')),
  type_ocr text not null check (type_ocr in ('ekstrak_only', 'representasi')),
  -- queued → processing → done | failed, followed from the ocr-service's task status.
  state text not null default 'queued' check (state in ('queued', 'processing', 'done', 'failed')),
  stage text not null default 'pending',
  progress_pct integer not null default 0,
  error text,
  error_code integer,
  pdf_url text,
  -- pending while the summary may still come after `done`; done or none after.
  summary_state text not null default 'pending' check (summary_state in ('pending', 'done', 'none')),
  -- The follower's lease: one replica at a time follows a document.
  lease_until timestamptz,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index documents_by_workspace on documents (workspace_id, created_at desc);
create index documents_followed on documents (updated_at)
  where state in ('queued', 'processing') or (state = 'done' and summary_state = 'pending');

-- What OCR produced, as stored in the ocr-service's result index (`INDEX_PDF_PARSING_RESULTS`).
create table document_ocr_results (
  document_id uuid primary key references documents (id) on delete cascade,
  result_index text not null,
  chunk_ids text[] not null,
  pages integer not null,
  characters integer not null,
  collected_at timestamptz not null default now()
);

-- The summary of a document, as in the summary indexes (`summarize_document`, `summarize_document_chunk`).
create table document_summaries (
  document_id uuid primary key references documents (id) on delete cascade,
  summary text not null,
  key_points jsonb not null default '[]',
  topics jsonb not null default '[]',
  named_entities jsonb not null default '{}',
  summary_index text not null,
  chunk_summary_index text not null,
  collected_at timestamptz not null default now()
);

create table topics (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  description text not null default '',
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);

create table topic_documents (
  topic_id uuid not null references topics (id) on delete cascade,
  document_id uuid not null references documents (id) on delete cascade,
  added_by text not null references users (id),
  added_at timestamptz not null default now(),
  primary key (topic_id, document_id)
);
create index topic_documents_by_document on topic_documents (document_id);
