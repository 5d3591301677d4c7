CREATE TABLE IF NOT EXISTS account (id VARCHAR(200) PRIMARY KEY, balance BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS deposit_key (
    account_id VARCHAR(200) NOT NULL,
    idempotency_key VARCHAR(255) NOT NULL,
    amount BIGINT NOT NULL,
    balance BIGINT NOT NULL,
    PRIMARY KEY (account_id, idempotency_key));
