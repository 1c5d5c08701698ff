-- The policy-sync outbox: one row per role-data change, written in the transaction of the change
-- and deleted once a call to policy-sync made after it was confirmed (200). A row outlives any
-- failure of policy-sync, the network or this process, so no change waits for the periodic
-- resync to reach OPA.
create table policy_sync_outbox (
  id bigserial primary key,
  target text not null check (target in ('role-users', 'role-grants')),
  -- clock_timestamp: the time of the change itself, not of the start of its transaction.
  created_at timestamptz not null default clock_timestamp(),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default clock_timestamp(),
  last_error text
);
create index policy_sync_outbox_due on policy_sync_outbox (next_attempt_at);
