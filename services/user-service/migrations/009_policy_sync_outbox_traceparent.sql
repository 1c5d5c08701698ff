-- The trace of the request that made a role-data change (its W3C traceparent), so the call that
-- delivers the change to policy-sync continues that trace instead of starting one of its own.
-- Null when the change was made untraced (tracing off, or outside a request).
alter table policy_sync_outbox add column traceparent text;
