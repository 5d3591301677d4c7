package dev.sharding.baseline;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The accounts in the database: a deposit is one transaction that adds to the row (creating it at the first deposit)
 * and reads the new balance; with an idempotency key, the key's row is written in the same transaction, so that a
 * repeat finds it and answers the first deposit's balance. On PostgreSQL the deposit is one
 * {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING}; on H2, which has no such statement, an {@code UPDATE}, an
 * {@code INSERT} when no row was there, and a {@code SELECT}.
 */
@Repository
class Accounts {

    private final JdbcClient jdbc;

    private final TransactionTemplate transactions;

    private final boolean postgres;

    Accounts(
            JdbcClient jdbc,
            PlatformTransactionManager transactionManager,
            @Value("${spring.datasource.url}") String url) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.postgres = url.startsWith("jdbc:postgresql:");
    }

    /**
     * Adds a deposit.
     *
     * @return the new balance
     */
    long deposit(String id, long amount) {
        Long balance = transactions.execute(status -> add(id, amount));
        return balance == null ? 0 : balance;
    }

    /**
     * Adds a deposit once per key and account.
     *
     * @return the new balance, or the balance the first deposit with this key answered
     * @throws KeyReusedException if the key was used for another amount
     */
    long deposit(String id, long amount, String key) {
        try {
            Long balance = transactions.execute(status -> {
                jdbc.sql("INSERT INTO deposit_key (account_id, idempotency_key, amount, balance)"
                                + " VALUES (:id, :key, :amount, 0)")
                        .param("id", id)
                        .param("key", key)
                        .param("amount", amount)
                        .update();
                long b = add(id, amount);
                jdbc.sql("UPDATE deposit_key SET balance = :balance WHERE account_id = :id AND idempotency_key = :key")
                        .param("balance", b)
                        .param("id", id)
                        .param("key", key)
                        .update();
                return b;
            });
            return balance == null ? 0 : balance;
        } catch (DuplicateKeyException e) {
            long[] first = jdbc.sql("SELECT amount, balance FROM deposit_key WHERE account_id = :id AND idempotency_key"
                            + " = :key")
                    .param("id", id)
                    .param("key", key)
                    .query((rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)})
                    .single();
            if (first[0] != amount) {
                throw new KeyReusedException(key);
            }
            return first[1];
        }
    }

    /** {@return the balance, 0 for an account never seen} */
    long balance(String id) {
        return jdbc.sql("SELECT balance FROM account WHERE id = :id")
                .param("id", id)
                .query(Long.class)
                .optional()
                .orElse(0L);
    }

    private long add(String id, long amount) {
        if (postgres) {
            return jdbc.sql("INSERT INTO account (id, balance) VALUES (:id, :amount) ON CONFLICT (id) DO UPDATE"
                            + " SET balance = account.balance + EXCLUDED.balance RETURNING balance")
                    .param("id", id)
                    .param("amount", amount)
                    .query(Long.class)
                    .single();
        }
        if (update(id, amount) == 0) {
            try {
                jdbc.sql("INSERT INTO account (id, balance) VALUES (:id, :amount)")
                        .param("id", id)
                        .param("amount", amount)
                        .update();
            } catch (DuplicateKeyException e) {
                // another instance created the account meanwhile; H2 undid this statement only
                update(id, amount);
            }
        }
        return balance(id);
    }

    private int update(String id, long amount) {
        return jdbc.sql("UPDATE account SET balance = balance + :amount WHERE id = :id")
                .param("id", id)
                .param("amount", amount)
                .update();
    }

    /** An idempotency key used before for another deposit to the same account. */
    static final class KeyReusedException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        KeyReusedException(String key) {
            super("The Idempotency-Key " + key + " was used for another deposit to this account; nothing was applied");
        }
    }
}
