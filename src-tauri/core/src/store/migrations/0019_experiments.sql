-- A dataset imported as the next version of another (`import --version-of`): the first
-- version of its family, so every version of a test set is one query even when the
-- questions were edited between versions (same questions need no link: `question_set`).
ALTER TABLE datasets ADD COLUMN version_of INTEGER REFERENCES datasets(id) ON DELETE SET NULL;

-- "Try this" on an action: the change a user will make for one failure pattern of a run,
-- and the items the pattern fired on, by the user's id ("#N" by position without one).
-- Its outcome is not stored: it is read from the next run of the test set each time.
CREATE TABLE experiments (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    pattern       TEXT NOT NULL,
    action_title  TEXT NOT NULL,
    change        TEXT NOT NULL,
    targets_json  TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX experiments_by_run ON experiments(run_id);
