-- The results a judge or a metric could not score, by run. Counting a run's errors at its
-- end (and listing them for a resume) otherwise read every result row of the run: about
-- 5 % of a judge-free run's time, tens of seconds at a million items. Partial: only error
-- rows are in it, so storing an `ok` result costs nothing more.
CREATE INDEX results_errors ON results(run_id, item_id, metric) WHERE status = 'error';
