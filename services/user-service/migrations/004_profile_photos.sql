-- Profile photos live in S3; the user row keeps the object key and the content type.
alter table users add column photo_key text;
alter table users add column photo_type text;
