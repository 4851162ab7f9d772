-- Keyset paging of the case list ("next page" after the last row shown, at the same cost
-- at any depth): "worst first" reads the scored items in (goodness, position) order
-- straight from this index, then the unscored ones in run order.
DROP INDEX case_index_by_goodness;
CREATE INDEX case_index_by_goodness ON case_index(run_id, goodness, position);
