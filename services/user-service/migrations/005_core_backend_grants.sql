-- Grants the built-in `user` role needs for the core backend. Inside a workspace the core backend
-- decides itself (workspace roles owner / editor / viewer, access lists of each knowledge
-- resource), so the role may call every path under one workspace; creating a workspace and the
-- platform-wide workspace administration stay with `admin` (which holds `**`) or whichever role
-- an administrator gives the `workspace-admin` feature to.
insert into features (name, label) values
  ('workspaces', 'Workspaces a user is a member of'),
  ('workspace-admin', 'Create workspaces; see and repair every workspace');

insert into sub_features (feature_id, name, label, method, path)
select f.id, s.name, s.label, s.method, s.path
from features f,
  (values
    ('workspaces', 'list-workspaces', 'List own workspaces', 'GET', '/api/workspaces'),
    ('workspaces', 'list-workspace-roles', 'List workspace roles', 'GET', '/api/workspace-roles'),
    ('workspaces', 'read-workspace', 'Read in a workspace', 'GET', '/api/workspaces/**'),
    ('workspaces', 'create-in-workspace', 'Create in a workspace', 'POST', '/api/workspaces/**'),
    ('workspaces', 'change-in-workspace', 'Change in a workspace', 'PUT', '/api/workspaces/**'),
    ('workspaces', 'patch-in-workspace', 'Change in a workspace', 'PATCH', '/api/workspaces/**'),
    ('workspaces', 'delete-in-workspace', 'Delete in a workspace', 'DELETE', '/api/workspaces/**'),
    ('workspace-admin', 'create-workspace', 'Create a workspace', 'POST', '/api/workspaces'),
    ('workspace-admin', 'manage-workspace-roles', 'Create workspace roles', 'POST', '/api/workspace-roles'),
    ('workspace-admin', 'change-workspace-roles', 'Change workspace roles', 'PUT', '/api/workspace-roles/*'),
    ('workspace-admin', 'delete-workspace-roles', 'Delete workspace roles', 'DELETE', '/api/workspace-roles/*'),
    ('workspace-admin', 'list-all-workspaces', 'List every workspace', 'GET', '/api/admin/workspaces'),
    ('workspace-admin', 'take-over-workspace', 'Become owner of any workspace', 'PUT', '/api/admin/workspaces/*/owner')
  ) as s (feature, name, label, method, path)
where f.name = s.feature;

insert into policies (role_id, sub_feature_id, status)
select r.id, s.id, true
from roles r, sub_features s join features f on f.id = s.feature_id
where r.name = 'user' and f.name = 'workspaces';
