-- Self-registered accounts wait for their owner to follow the link mailed to them: until then
-- they cannot log in, take no license seat and are not in OPA's data. Accounts that exist, and
-- those administrators make, are verified.
alter table users add column email_verified boolean not null default true;
