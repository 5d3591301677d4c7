package dev.sharding.sample;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;

/**
 * A bank account: a sharded entity, one instance per account id, alive on one node of the cluster at a time.
 *
 * <p>It handles one message at a time, so its balance needs no lock. The balance is its durable {@link EntityState}:
 * a deposit is acknowledged only once the new balance is stored, the balance moves with the account when its shard
 * moves, and it is read back from the store when the account starts after a crash or a restart.
 */
@ShardedEntity(type = "account")
public class Account {

    private final EntityContext context;

    private final EntityState<AccountState> state;

    /**
     * Creates the account; the runtime does this when the first message for its id arrives.
     *
     * @param context the account's id and the node it runs on
     * @param state the account's durable state
     */
    public Account(EntityContext context, EntityState<AccountState> state) {
        this.context = context;
        this.state = state;
    }

    /**
     * The state of an account never seen.
     *
     * @return a zero balance
     */
    @InitialState
    static AccountState newAccount() {
        return new AccountState(0);
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
        long balance = state.get().balance();
        if (deposit.amount() > Long.MAX_VALUE - balance) {
            throw new IllegalArgumentException("A deposit of " + deposit.amount()
                    + " would take the balance of account " + context.entityId() + " over " + Long.MAX_VALUE);
        }
        state.set(new AccountState(balance + deposit.amount()));
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
        return new Balance(context.entityId(), state.get().balance(), context.nodeName());
    }
}
