-- Batches of the judge check as well as of runs. A check has no row of its own until it
-- finishes, so its batches belong to the judge being checked (its configuration key):
-- checking the same judge again picks a waiting batch up instead of sending it twice.
-- SQLite cannot drop a NOT NULL, so both tables are rebuilt with an owner that is either
-- a run or a checked judge. Every batch now also keeps what reading it cost (`spent`):
-- a check adds it up only at its end, possibly in a later process.
CREATE TABLE judge_batches_v2 (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    check_judge    TEXT,
    provider       TEXT NOT NULL,
    batch_id       TEXT NOT NULL,
    input_file_id  TEXT,
    output_file_id TEXT,
    error_file_id  TEXT,
    status         TEXT NOT NULL,
    entries        INTEGER NOT NULL,
    completed      INTEGER NOT NULL DEFAULT 0,
    failed         INTEGER NOT NULL DEFAULT 0,
    entry_keys     BLOB NOT NULL,
    submitted_at   TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    ingested_at    TEXT,
    -- What reading the batch cost (JSON of the accounting), set with ingested_at.
    spent          TEXT,
    CHECK ((run_id IS NULL) <> (check_judge IS NULL))
);
INSERT INTO judge_batches_v2 (id, run_id, provider, batch_id, input_file_id, output_file_id,
                              error_file_id, status, entries, completed, failed, entry_keys,
                              submitted_at, updated_at, ingested_at)
    SELECT id, run_id, provider, batch_id, input_file_id, output_file_id, error_file_id,
           status, entries, completed, failed, entry_keys, submitted_at, updated_at,
           ingested_at
    FROM judge_batches;

CREATE TABLE judge_batch_misses_v2 (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    check_judge TEXT,
    key_prefix  INTEGER NOT NULL,
    batch       INTEGER REFERENCES judge_batches_v2(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    CHECK ((run_id IS NULL) <> (check_judge IS NULL))
);
INSERT INTO judge_batch_misses_v2 (run_id, key_prefix, batch, reason)
    SELECT run_id, key_prefix, batch, reason FROM judge_batch_misses;

DROP TABLE judge_batch_misses;
DROP TABLE judge_batches;
ALTER TABLE judge_batches_v2 RENAME TO judge_batches;
ALTER TABLE judge_batch_misses_v2 RENAME TO judge_batch_misses;
CREATE INDEX judge_batches_by_run ON judge_batches (run_id);
CREATE INDEX judge_batches_by_check ON judge_batches (check_judge);
-- One record per request and owner: the first reason is kept.
CREATE UNIQUE INDEX judge_batch_misses_once
    ON judge_batch_misses (IFNULL(run_id, 0), IFNULL(check_judge, ''), key_prefix);
CREATE INDEX judge_batch_misses_by_batch ON judge_batch_misses (batch);
