-- The built-in roles: `admin` at the top with every method on every path, `user` (the role of
-- self-registered accounts) at the bottom with no grant until an administrator gives one.
insert into roles (name, description, level) values
  ('admin', 'Administrators: every method on every path', 1),
  ('user', 'Self-registered users', 100);

insert into features (name, label) values ('all', 'Everything');

insert into sub_features (feature_id, name, label, method, path)
select f.id, 'all-' || lower(m.method), 'Every ' || m.method || ' request', m.method, '**'
from features f, (values ('GET'), ('POST'), ('PUT'), ('PATCH'), ('DELETE')) as m (method)
where f.name = 'all';

insert into policies (role_id, sub_feature_id, status)
select r.id, s.id, true
from roles r, sub_features s join features f on f.id = s.feature_id
where r.name = 'admin' and f.name = 'all';
