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

-- The `ok` scores of a run by metric and score, for the case list only: sorting by a
-- metric, filtering by a score range and counting scored items answer from this index
-- alone, in score order, without visiting the wide result rows. Partial on purpose: its
-- condition names `score >= 0`, which only the case-list queries in store/cases.rs
-- state, so the planner never prefers it for the per-item lookups of other queries
-- (where it would be the wrong index: item_id comes last).
CREATE INDEX results_case_scores ON results(run_id, metric, score, item_id, status)
    WHERE status = 'ok' AND score >= 0;
