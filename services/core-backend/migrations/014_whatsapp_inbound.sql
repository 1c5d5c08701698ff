-- The WhatsApp bridge receives: what Meta's webhook needs (the app secret its requests are signed
-- with, the verify token of its handshake, both sealed), and the app key the integration answers
-- as (its sources are the integration's; a revoked or deleted key stops the answers).
alter table workspace_integrations
  add column app_secret_sealed text,
  add column verify_token_sealed text,
  add column app_key_id uuid references app_keys (id) on delete set null;

-- The outbox of the bridge: every message a webhook brought, stored before the webhook answers,
-- until its reply is sent (or given up). One row per message id: the sender's retries of the same
-- message find it and answer nothing more.
create table whatsapp_messages (
  id uuid primary key,
  integration_id uuid not null references workspace_integrations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- Meta's message id (`wamid...`) and the sender's WhatsApp id.
  wa_message_id text not null,
  sender text not null,
  -- `text`, `image`, `audio`, ...: only text is answered from the knowledge.
  message_type text not null,
  body text,
  -- What the reply is: the answer, the "text only" note, the one "slow down" note, or none
  -- (a sender past the limit who already had the note).
  reply_kind text not null check (reply_kind in ('answer', 'text_only', 'slow_down', 'none')),
  -- pending → answered (the reply's text is stored: a restart sends it, never asks again) → sent,
  -- or failed after WHATSAPP_MAX_ATTEMPTS; `none` replies are `skipped`.
  state text not null default 'pending'
    check (state in ('pending', 'answered', 'sent', 'failed', 'skipped')),
  reply text,
  -- The session's message holding the answer, and the Cloud API's id of the sent reply.
  chat_message_id uuid,
  reply_id text,
  attempts integer not null default 0,
  last_error text,
  -- The worker's lease, doubling as "not before" after a failed try.
  lease_until timestamptz,
  received_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz,
  unique (integration_id, wa_message_id)
);
create index whatsapp_messages_due on whatsapp_messages (received_at)
  where state in ('pending', 'answered');
-- A sender's earlier message still waiting holds back the later ones (replies keep their order).
create index whatsapp_messages_waiting_by_sender on whatsapp_messages
  (integration_id, sender, received_at, id) where state in ('pending', 'answered');
