package dev.sharding.sample;

import dev.sharding.ApplyEvent;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EventSourcedState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;

/**
 * A bank account: a sharded entity, one instance per account id, alive on one node of the cluster at a time.
 *
 * <p>It handles one message at a time, so its balance needs no lock. It is event-sourced: a deposit persists a
 * {@link Deposited} event to the account's journal, and its balance is the fold of those events through
 * {@link #apply}. A deposit is acknowledged only once its event is stored; the balance moves with the account when its
 * shard moves, and after a crash or a restart it is recovered from the latest snapshot and the events after it. The
 * journal is also what the {@link AccountHistory} projection reads.
 */
@ShardedEntity(type = Account.TYPE)
public class Account {

    /** The entity type's name. */
    static final String TYPE = "account";

    private final EntityContext context;

    private final EventSourcedState<AccountState, Deposited> state;

    /**
     * Creates the account; the runtime does this when the first message for its id arrives.
     *
     * @param context the account's id and the node it runs on
     * @param state the account's event-sourced state
     */
    public Account(EntityContext context, EventSourcedState<AccountState, Deposited> state) {
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
     * The state after a deposit: the fold of the account's events, run when a deposit is persisted and again on every
     * stored event when the account recovers.
     *
     * @param account the state before
     * @param deposited the deposit, whose amount {@link #on(Deposit)} checked before persisting it
     * @return the state after
     */
    @ApplyEvent
    static AccountState apply(AccountState account, Deposited deposited) {
        return new AccountState(account.balance() + deposited.amount());
    }

    /**
     * Adds a deposit to the balance.
     *
     * @param deposit the deposit
     * @return the new balance
     * @throws IllegalArgumentException if the amount is not positive or the balance would overflow; nothing is then
     *     persisted and the balance is unchanged
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
        state.persist(new Deposited(deposit.amount()));
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
