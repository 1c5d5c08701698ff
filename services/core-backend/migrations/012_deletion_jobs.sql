-- Deletions finished outside PostgreSQL. Deleting a workspace, document or audio removes its rows
-- at once and records here what it left on the other servers (knowledge-index passages, OCR
-- chunks and summaries, stored files): a job every replica's deletion worker takes (lease with
-- `for update skip locked`) and retries until nothing is left, across restarts. Finished jobs
-- stay a while as the record that the deletion completed.
create table if not exists deletion_jobs (
  id uuid primary key,
  kind text not null check (kind in ('workspace', 'document', 'audio')),
  target_id uuid not null,
  -- No foreign key: the workspace is usually gone.
  workspace_id uuid not null,
  leftovers jsonb not null,
  attempts integer not null default 0,
  last_error text,
  run_after timestamptz not null default now(),
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists deletion_jobs_due on deletion_jobs (run_after) where finished_at is null;
create index if not exists deletion_jobs_finished on deletion_jobs (finished_at)
  where finished_at is not null;
