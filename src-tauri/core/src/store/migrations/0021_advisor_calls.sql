-- What the advisor sent to a model about a run (`ask --judge`, the window's model
-- picker): the run's privacy record lists it beside the judge's calls, with its tokens
-- and cost. The question is kept (the user wrote it); the facts sent are counted, not
-- copied: they are the run's own figures and item questions, already in this file.
CREATE TABLE advisor_calls (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    judge          TEXT NOT NULL,
    host           TEXT,
    question       TEXT NOT NULL,
    facts          INTEGER NOT NULL,
    items          INTEGER NOT NULL,
    tokens         INTEGER NOT NULL,
    cost_usd       REAL NOT NULL,
    asked_at       TEXT NOT NULL
);
CREATE INDEX advisor_calls_by_run ON advisor_calls(run_id);
