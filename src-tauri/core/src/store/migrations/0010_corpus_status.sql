-- A corpus is 'ingesting' while its documents are read and 'ready' once all of them are
-- in. An ingest killed part-way leaves an 'ingesting' corpus that is never listed or
-- used as if it were whole. Corpora from before this migration were finished.
ALTER TABLE corpora ADD COLUMN status TEXT NOT NULL DEFAULT 'ready';
