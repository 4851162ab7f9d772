-- Ragnosis schema v1. One row per dataset, item, run and (run, item, metric) result.
-- Keys never live here: judge profiles (a later migration) hold no secrets.

CREATE TABLE datasets (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    source_path   TEXT,
    file_hash     TEXT,
    imported_at   TEXT NOT NULL,
    item_count    INTEGER NOT NULL DEFAULT 0,
    schema        TEXT,
    mapping_json  TEXT NOT NULL DEFAULT '{}',
    report_json   TEXT NOT NULL DEFAULT '{}',
    -- 'importing' until every accepted item is stored; a crash leaves it visible.
    status        TEXT NOT NULL DEFAULT 'importing'
);

CREATE TABLE items (
    id              INTEGER PRIMARY KEY,
    dataset_id      INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    ordinal         INTEGER NOT NULL,
    source_line     INTEGER NOT NULL,
    external_id     TEXT,
    content_hash    TEXT NOT NULL,
    question        TEXT NOT NULL,
    answer          TEXT,
    contexts_json   TEXT NOT NULL DEFAULT '[]',
    ground_truth    TEXT,
    citation_label  TEXT,
    retrieved_ids_json TEXT NOT NULL DEFAULT '[]',
    -- reference contexts, gold ids, aspects, RAGChecker labels: rarely queried alone.
    extra_json      TEXT NOT NULL DEFAULT '{}',
    metadata_json   TEXT NOT NULL DEFAULT '{}',
    UNIQUE (dataset_id, ordinal)
);
CREATE INDEX items_by_hash ON items(content_hash);

CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    dataset_id    INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    label         TEXT,
    version       TEXT,
    notes         TEXT,
    mode          TEXT NOT NULL,
    metrics_json  TEXT NOT NULL,
    judge         TEXT NOT NULL DEFAULT 'none',
    config_json   TEXT NOT NULL DEFAULT '{}',
    status        TEXT NOT NULL,
    message       TEXT,
    item_count    INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    started_at    TEXT,
    finished_at   TEXT,
    totals_json   TEXT NOT NULL DEFAULT '{}'
);

-- The items a run evaluates (after --limit / --sample), in evaluation order.
CREATE TABLE run_items (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    item_id  INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    PRIMARY KEY (run_id, position)
);

CREATE TABLE results (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    item_id        INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    metric         TEXT NOT NULL,
    judge_config   TEXT NOT NULL DEFAULT '',
    score          REAL,
    status         TEXT NOT NULL CHECK (status IN ('ok', 'error', 'skipped')),
    explanation    TEXT NOT NULL DEFAULT '',
    details_json   TEXT NOT NULL DEFAULT 'null',
    latency_ms     INTEGER,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    prompt_version TEXT,
    created_at     TEXT NOT NULL,
    UNIQUE (run_id, item_id, metric, judge_config)
);
CREATE INDEX results_by_run_metric ON results(run_id, metric, score);

CREATE TABLE analyses (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    json       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, kind)
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
