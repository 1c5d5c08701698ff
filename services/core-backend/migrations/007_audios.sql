-- Audios of a workspace: the uploaded recording, its transcript ("audio document"), the
-- transcript's indexed chunks with their speakers, and its summary.
create table audios (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  -- The recording in object storage (`core-audios/{id}`); kept for re-processing.
  original_key text not null,
  file_name text not null,
  size_bytes bigint not null,
  -- The speech-to-text settings it was (or will be) transcribed with.
  stt_model text not null,
  diarize boolean not null,
  suppress_numerals boolean not null,
  language text,
  -- queued → transcribing → done | failed; the summary follows the transcript.
  state text not null default 'queued' check (state in ('queued', 'transcribing', 'done', 'failed')),
  summary_state text not null default 'pending'
    check (summary_state in ('pending', 'done', 'failed', 'none')),
  -- Failed attempts of the current step (transcription, then summary); reset when it succeeds.
  attempts integer not null default 0,
  error text,
  -- The worker's lease: one replica at a time works on an audio.
  lease_until timestamptz,
  created_by text not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  transcribed_at timestamptz
);
create index audios_by_workspace on audios (workspace_id, created_at desc);
create index audios_pending on audios (updated_at)
  where state in ('queued', 'transcribing') or (state = 'done' and summary_state = 'pending');

-- The transcript of an audio.
create table audio_documents (
  audio_id uuid primary key references audios (id) on delete cascade,
  text text not null,
  language text,
  duration_seconds double precision,
  speakers text[] not null,
  segments integer not null,
  created_at timestamptz not null default now()
);

-- The transcript's chunks as indexed for retrieval (speaker turns, long ones split).
create table audio_document_chunks (
  audio_id uuid not null references audios (id) on delete cascade,
  position integer not null,
  speaker text,
  start_seconds double precision not null,
  end_seconds double precision not null,
  text text not null,
  primary key (audio_id, position)
);

create table audio_document_summaries (
  audio_id uuid primary key references audios (id) on delete cascade,
  summary text not null,
  key_points jsonb not null,
  topics jsonb not null,
  named_entities jsonb not null,
  created_at timestamptz not null default now()
);
