-- Each distinct context text of a dataset, stored once. A retriever returns chunks of one
-- corpus, so a log of 100 000 questions with five contexts each names a few thousand
-- distinct chunks; storing the text inside every item wrote each chunk hundreds of times.
-- Items written from this version on keep `{"chunk": id}` in contexts_json where the text
-- was; older rows keep their text and are read as before. Per dataset, so deleting a
-- dataset deletes its chunks and nothing is shared to count references for.
CREATE TABLE context_chunks (
    id          INTEGER PRIMARY KEY,
    dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    -- The first 16 bytes of the text's BLAKE3 hash.
    hash        BLOB NOT NULL,
    text        TEXT NOT NULL,
    UNIQUE (dataset_id, hash)
);
