-- When the ocr-service accepted a document's task: the follower leaves a document alone before
-- (a status asked earlier would find no task yet). A migration of its own: 003 had already been
-- applied by installs (and development databases) when this was added.
alter table documents add column if not exists submitted_at timestamptz;
