package dev.sharding.sample;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/**
 * A bank account: a sharded entity, one instance per account id, alive on one node of the cluster at a time.
 *
 * <p>It handles one message at a time, so its balance needs no lock. The balance lives in memory only: it starts at 0
 * when the account is first reached, and it is lost when the node hosting the account stops or crashes.
 */
@ShardedEntity(type = "account")
public class Account {

    private final EntityContext context;

    private long balance;

    /**
     * Creates the account; the runtime does this when the first message for its id arrives.
     *
     * @param context the account's id and the node it runs on
     */
    public Account(EntityContext context) {
        this.context = context;
    }

    /**
     * Adds a deposit to the balance.
     *
     * @param deposit the deposit
     * @return the new balance
     * @throws IllegalArgumentException if the amount is not positive or the balance would overflow; the balance is
     *     then unchanged
     */
    @EntityHandler
    public Balance on(Deposit deposit) {
        if (deposit.amount() <= 0) {
            throw new IllegalArgumentException("Deposit amount must be positive, not " + deposit.amount());
        }
        if (deposit.amount() > Long.MAX_VALUE - balance) {
            throw new IllegalArgumentException("A deposit of " + deposit.amount() + " would take the balance of account "
                    + context.entityId() + " over " + Long.MAX_VALUE);
        }
        balance += deposit.amount();
        return current();
    }

    /**
     * Tells the balance.
     *
     * @param query the query
     * @return the balance
     */
    @EntityHandler
    public Balance on(GetBalance query) {
        return current();
    }

    private Balance current() {
        return new Balance(context.entityId(), balance, context.nodeName());
    }
}
