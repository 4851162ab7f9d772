-- Runs of two pipeline versions answer the same questions with different answers, so
-- they live in two datasets. `question_set` fingerprints a dataset's questions (with
-- their ground truths) regardless of answers and order, so a trend can span every run
-- of the same questions. Filled at import; older rows are filled on open (store::open).
ALTER TABLE datasets ADD COLUMN question_set TEXT;
CREATE INDEX datasets_by_question_set ON datasets (question_set);
CREATE INDEX datasets_by_file_hash ON datasets (file_hash);

-- People's scores of items, per metric, to measure how far a judge agrees with them.
-- Keyed by the item's content hash (question, answer, contexts, references): a label
-- survives re-runs and re-imports of the same item, and never carries over to an item
-- whose answer changed. One label per item and metric: a newer one replaces it.
CREATE TABLE human_labels (
    content_hash TEXT NOT NULL,
    metric       TEXT NOT NULL,
    score        REAL NOT NULL CHECK (score >= 0 AND score <= 1),
    note         TEXT,
    source       TEXT NOT NULL,
    labelled_at  TEXT NOT NULL,
    PRIMARY KEY (content_hash, metric)
);
