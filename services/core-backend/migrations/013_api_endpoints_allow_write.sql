-- An endpoint whose method may change data (anything but GET) is called only when its API's
-- editors allow it; existing ones are not, until someone allows them.
alter table api_endpoints add column allow_write boolean not null default false;
