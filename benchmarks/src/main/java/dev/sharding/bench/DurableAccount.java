package dev.sharding.bench;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.EntityType;
import dev.sharding.sample.AccountState;
import dev.sharding.sample.Balance;
import dev.sharding.sample.Deposit;
import dev.sharding.sample.GetBalance;

/**
 * D1's and D2's account: the sample's account as it was before it became event-sourced, its balance a durable
 * {@link EntityState} written through to the store before each deposit's reply, with the sample's own messages. D3 runs
 * the sample's event-sourced {@code Account} instead, so that the two are measured side by side. It is registered as
 * an {@link EntityType} bean (not a scanned {@code @ShardedEntity}, which every bench node would then run beside the
 * sample's account of the same type name).
 */
public class DurableAccount {

    private final EntityContext context;

    private final EntityState<AccountState> state;

    private DurableAccount(EntityContext context) {
        this.context = context;
        this.state = context.state(AccountState.class, () -> new AccountState(0));
    }

    /** {@return the entity type, named as the sample's account} */
    static EntityType<DurableAccount> type() {
        return EntityType.of(DurableAccount.class, DurableAccount::new)
                .withName(DepositWorkload.TYPE)
                .withState(AccountState.class);
    }

    /**
     * Adds a deposit, stored before the reply.
     *
     * @param deposit the deposit
     * @return the new balance
     */
    @EntityHandler
    public Balance on(Deposit deposit) {
        if (deposit.amount() <= 0) {
            throw new IllegalArgumentException("Deposit amount must be positive, not " + deposit.amount());
        }
        state.set(new AccountState(state.get().balance() + deposit.amount()));
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
