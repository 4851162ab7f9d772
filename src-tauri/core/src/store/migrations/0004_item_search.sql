-- Substring search over questions and answers for the desktop case list. A scan with
-- LIKE reads every item's text (about 220 ms for 100 000 items); a trigram index
-- answers the same "contains" question from the index. Contentless (the text stays in
-- `items` only) with contentless_delete so a dataset's rows can be removed. Filled per
-- dataset on its first search (`store::cases::text_hits`); `item_search_datasets` says
-- which datasets are in it.
CREATE VIRTUAL TABLE item_search USING fts5(
    question, answer, content = '', contentless_delete = 1, tokenize = 'trigram'
);
CREATE TABLE item_search_datasets (
    dataset_id INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE
);
