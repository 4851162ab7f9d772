-- Judge checks: how far a judge agreed with human labels on the shipped sample. Kept by
-- judge configuration (`offline` or `name:model@T`), so a report can cite the check of
-- the judge that produced its scores; every check is kept, the latest is shown.
CREATE TABLE judge_checks (
    id             INTEGER PRIMARY KEY,
    profile        TEXT NOT NULL,
    judge_config   TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    sample_version TEXT NOT NULL,
    json           TEXT NOT NULL,
    created_at     TEXT NOT NULL
);
CREATE INDEX judge_checks_by_config ON judge_checks (judge_config, id);
CREATE INDEX judge_checks_by_profile ON judge_checks (profile, id);
