-- A run's results of one metric are read whole (statistics, exports) or through the case
-- list's own partial index (sorted by score, migration 0003); none reads this index in
-- score order. Keyed by score, each stored result landed at a random place in its
-- metric's part of the index; keyed by item, results are appended as items complete.
DROP INDEX IF EXISTS results_by_run_metric;
CREATE INDEX results_by_run_metric ON results(run_id, metric, item_id);
