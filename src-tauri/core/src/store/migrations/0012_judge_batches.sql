-- Provider batches of judge requests (a run in batch mode). A row is written the moment
-- the provider accepted a batch, so a resume after a crash finds it and reads its results
-- instead of sending the requests again. Ids, status and counts only: never a key, never a
-- prompt (the requests are rebuilt from the run's items when the results are read).
CREATE TABLE judge_batches (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- openai | azure | anthropic
    provider       TEXT NOT NULL,
    -- The provider's id of the batch.
    batch_id       TEXT NOT NULL,
    -- OpenAI and Azure: the uploaded request file, and the result files once it ended.
    input_file_id  TEXT,
    output_file_id TEXT,
    error_file_id  TEXT,
    -- The provider's own word: validating, in_progress, completed, expired, ended, ...
    status         TEXT NOT NULL,
    -- Requests in the batch, and how many the provider reports answered and failed.
    entries        INTEGER NOT NULL,
    completed      INTEGER NOT NULL DEFAULT 0,
    failed         INTEGER NOT NULL DEFAULT 0,
    -- The first 8 bytes of each request's cache key (its custom_id), little-endian, in
    -- file order: after a restart the requests a provider returned nothing for are still
    -- known, so none is silently dropped.
    entry_keys     BLOB NOT NULL,
    submitted_at   TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    -- Set when the results were read back, in the transaction that adds their cost to the
    -- run: a batch is never counted twice.
    ingested_at    TEXT
);
CREATE INDEX judge_batches_by_run ON judge_batches (run_id);

-- Requests a batch did not answer usably (failed, expired, missing from the results, a
-- reply that could not be read), or too large to send in one. The run's live pass asks
-- them instead of sending them to another batch.
CREATE TABLE judge_batch_misses (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- The first 8 bytes of the request's cache key, as in judge_batches.entry_keys.
    key_prefix  INTEGER NOT NULL,
    -- NULL for a request never sent (too large for a batch).
    batch       INTEGER REFERENCES judge_batches(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    PRIMARY KEY (run_id, key_prefix)
) WITHOUT ROWID;
