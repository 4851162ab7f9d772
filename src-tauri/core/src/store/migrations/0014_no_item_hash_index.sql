-- No query looks items up by content hash (people's labels are looked up in
-- human_labels, by their own index), yet every imported item paid for this index: a
-- random key, so each commit of an import rewrote pages all over it, and at a million
-- items it outgrew the page cache and import slowed to a third.
DROP INDEX IF EXISTS items_by_hash;
