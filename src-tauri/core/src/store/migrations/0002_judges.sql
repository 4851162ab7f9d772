-- Judge profiles and the judge cache. Profiles never hold a key: keys live in the OS
-- keyring (service "ragnosis", account = profile name) or the environment.

CREATE TABLE judge_profiles (
    name          TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    base_url      TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL,
    temperature   REAL NOT NULL DEFAULT 0,
    concurrency   INTEGER NOT NULL DEFAULT 4,
    rpm           INTEGER,
    tpm           INTEGER,
    timeout_secs  INTEGER NOT NULL DEFAULT 60,
    -- USD per million tokens; NULL = unknown (cost shown as unknown, not as 0).
    price_input   REAL,
    price_output  REAL,
    -- Azure: api-version; others: unused.
    api_version   TEXT,
    created_at    TEXT NOT NULL
);

-- Only parsed, successful verdicts are cached.
CREATE TABLE judge_cache (
    key           TEXT PRIMARY KEY,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    task          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    request_json  TEXT NOT NULL,
    verdict_json  TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL
);
