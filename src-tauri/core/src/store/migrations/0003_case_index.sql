-- The case list of a run: one narrow row per evaluated item with what the desktop case
-- list sorts and filters by, so a page of a 100 000-item run never aggregates the
-- results table. Derived data: rebuilt from `results` whenever the run has changed
-- since it was built (`cases::ensure_index`).

CREATE TABLE case_index (
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    item_id   INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    -- Mean `ok` score with lower-is-better metrics flipped (1 = good); NULL when the
    -- item has no score at all. "Worst cases" sort on it.
    goodness  REAL,
    -- Results of the item that ended in an error.
    errors    INTEGER NOT NULL DEFAULT 0,
    -- Letters (A–H) of the failure patterns that fired on the item, in letter order.
    patterns  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, position)
);
CREATE INDEX case_index_by_goodness ON case_index(run_id, goodness);
CREATE INDEX case_index_by_item ON case_index(run_id, item_id);

-- Per-metric reads of a run (sort by a metric, filter by a score range, count scored
-- items) answer from this index alone: with status and item_id in it, a 100 000-item
-- page never visits the wide result rows. It replaces the narrower index of 0001.
DROP INDEX results_by_run_metric;
CREATE INDEX results_by_run_metric ON results(run_id, metric, status, score, item_id);
