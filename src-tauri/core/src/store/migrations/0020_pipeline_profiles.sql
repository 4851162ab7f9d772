-- The user's description of the pipeline behind a dataset's answers (retriever, chunks,
-- top-k, models, ...): one JSON object per dataset, every field optional. A later version
-- of a test set without its own profile reads the nearest earlier version's.
CREATE TABLE pipeline_profiles (
    dataset_id    INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE,
    profile_json  TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
