-- Documents a user gives Ragnosis to build test sets from and to evaluate retrievers on,
-- cut into chunks. A corpus is one ingest: its chunking settings, its documents (with the
-- reason a file could not be read), and their chunks with page and offsets.
CREATE TABLE corpora (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    chunk_tokens INTEGER NOT NULL,
    overlap      INTEGER NOT NULL,
    created_at   TEXT NOT NULL
);

CREATE TABLE documents (
    id        INTEGER PRIMARY KEY,
    corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
    path      TEXT NOT NULL,
    kind      TEXT NOT NULL,
    pages     INTEGER NOT NULL DEFAULT 0,
    chunks    INTEGER NOT NULL DEFAULT 0,
    -- Why the file could not be read; the other files are ingested anyway.
    error     TEXT
);
CREATE INDEX documents_by_corpus ON documents (corpus_id);

CREATE TABLE chunks (
    id           INTEGER PRIMARY KEY,
    corpus_id    INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
    document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    -- The id datasets name as gold context ("policy.md#3", or a pre-chunked corpus's own).
    chunk_key    TEXT NOT NULL,
    ordinal      INTEGER NOT NULL,
    page         INTEGER,
    start_offset INTEGER,
    end_offset   INTEGER,
    tokens       INTEGER NOT NULL,
    text         TEXT NOT NULL,
    UNIQUE (corpus_id, chunk_key)
);

-- Embedding vectors by model and text hash, so a corpus is embedded once per model.
CREATE TABLE embeddings (
    model     TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector    BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
);
