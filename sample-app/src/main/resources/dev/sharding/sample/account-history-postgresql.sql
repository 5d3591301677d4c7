-- The sample's read model on PostgreSQL: one row per deposit, written by the projection account-history in the
-- transaction that moves its offset. The primary key refuses a second row for one event, so a deposit can never show
-- twice.

-- Nodes starting together would race in CREATE TABLE IF NOT EXISTS (it can fail on the catalog's unique index); a
-- transaction-scoped advisory lock makes them take turns.
SELECT pg_advisory_xact_lock(4163072187);

CREATE TABLE IF NOT EXISTS account_history (
    account_id VARCHAR(1024) NOT NULL,
    sequence_nr BIGINT NOT NULL,
    amount BIGINT NOT NULL,
    deposited_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (account_id, sequence_nr)
);
