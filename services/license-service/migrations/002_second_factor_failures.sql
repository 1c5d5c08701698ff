-- Wrong second-factor codes of an account since its last completed sign-in (password and second
-- factor). A correct password does not reset it, so starting a new login does not buy new guesses.
alter table admin_users add column second_factor_failures integer not null default 0;
