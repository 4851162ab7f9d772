-- What a generation has spent on judge calls over all its executions, and the most one
-- call cost, so a resumed generation's budget counts what was spent before it stopped
-- and knows what its next call is likely to cost.
ALTER TABLE generations ADD COLUMN spent_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE generations ADD COLUMN dearest_call_usd REAL;
