-- Your own criteria: every version of every criterion a user defined, whole, as JSON.
-- A version is never changed: editing a criterion adds the next version, so a run can
-- name the text that scored it. Removing a criterion marks its versions removed (runs
-- that used it still report it); defining the name again adds a new version.
-- (Numbered 0011: 0010 is another branch's; the two apply in order once both land.)
CREATE TABLE criteria (
    name            TEXT NOT NULL,
    version         INTEGER NOT NULL,
    definition_json TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    removed_at      TEXT,
    PRIMARY KEY (name, version)
);
