-- The dashboard and the license API lock apart: wrong Basic attempts must not lock the dashboard
-- sign-in, nor wrong dashboard passwords the license API. `failed_attempts` and `locked_until`
-- are the license API's from now on (a lock running at the upgrade stays there); the dashboard
-- gets its own pair, which wrong second-factor codes also lock.
alter table admin_users
  add column dashboard_failed_attempts integer not null default 0,
  add column dashboard_locked_until timestamptz;

-- Addresses from which an account passed the license API's Basic check lately: a lock caused by
-- wrong attempts from elsewhere does not shut them out, so guessing at a tenant's account from
-- another address cannot take that tenant's logins down.
create table api_known_addresses (
  account_id uuid not null references admin_users (id) on delete cascade,
  address text not null,
  last_success_at timestamptz not null default now(),
  primary key (account_id, address)
);
