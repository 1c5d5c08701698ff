-- The trace of the request that added (or last re-processed) a document, as a W3C traceparent:
-- the follower writes the document's OCR result and summary in a span of that trace, so one
-- trace runs from the upload through the OCR chain to the knowledge index. Null when untraced.
alter table documents add column if not exists traceparent text;
