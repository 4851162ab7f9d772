-- Test-set generation from a corpus (RAGalyst): one row per generation, which writes its
-- accepted test cases into a dataset as they are made, and one row per candidate, kept
-- whether accepted or rejected (with the reason), so a resumed generation skips what it
-- has done and the rejected ones can be read and exported.
CREATE TABLE generations (
    id            INTEGER PRIMARY KEY,
    corpus_id     INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
    dataset_id    INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    judge         TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    status        TEXT NOT NULL,
    message       TEXT,
    created_at    TEXT NOT NULL
);

CREATE TABLE candidates (
    id            INTEGER PRIMARY KEY,
    generation_id INTEGER NOT NULL REFERENCES generations(id) ON DELETE CASCADE,
    -- Position in the generation's seeded order of chunks.
    position      INTEGER NOT NULL,
    chunk_id      INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    question      TEXT,
    answer        TEXT,
    -- accepted | rejected | error
    status        TEXT NOT NULL,
    reason        TEXT,
    scores_json   TEXT NOT NULL DEFAULT '{}',
    UNIQUE (generation_id, position)
);
