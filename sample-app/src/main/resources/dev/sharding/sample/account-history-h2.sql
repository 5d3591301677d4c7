-- The sample's read model on H2: one row per deposit, written by the projection account-history in the transaction
-- that moves its offset. The primary key refuses a second row for one event, so a deposit can never show twice.
CREATE TABLE IF NOT EXISTS account_history (
    account_id VARCHAR(1024) NOT NULL,
    sequence_nr BIGINT NOT NULL,
    amount BIGINT NOT NULL,
    deposited_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (account_id, sequence_nr)
);
