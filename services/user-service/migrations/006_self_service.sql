-- What every signed-in user does for themselves: read their account and shortcuts, change their
-- password. The built-in `user` role gets it; a role an administrator adds needs the `self`
-- feature too (admin holds `**`).
insert into features (name, label) values ('self', 'Your own account');

insert into sub_features (feature_id, name, label, method, path)
select f.id, s.name, s.label, s.method, s.path
from features f,
  (values
    ('read-me', 'Read your own account', 'GET', '/me'),
    ('read-my-shortcuts', 'Read your shortcuts', 'GET', '/me/shortcuts'),
    ('change-my-password', 'Change your password', 'PUT', '/me/password')
  ) as s (name, label, method, path)
where f.name = 'self';

insert into policies (role_id, sub_feature_id, status)
select r.id, s.id, true
from roles r, sub_features s join features f on f.id = s.feature_id
where r.name = 'user' and f.name = 'self';
