package dev.sharding.autoconfigure.bank;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A bank account entity, found by scanning the application's package. It gets its context and a singleton bean
 * through its constructor and records its lifecycle in that bean.
 */
@ShardedEntity(numberOfShards = 20)
public class Account {

    private final EntityContext context;

    private final AuditLog audit;

    private long balance;

    /**
     * Creates the entity.
     *
     * @param context its context
     * @param audit where it records what happens to it
     */
    public Account(EntityContext context, AuditLog audit) {
        this.context = context;
        this.audit = audit;
    }

    /** Records the activation. */
    @PostConstruct
    void activated() {
        this.audit.record("activated " + this.context.entityId());
    }

    /** Records the stop, and whether the audit log still worked then. */
    @PreDestroy
    void stopped() {
        this.audit.record(
                (this.audit.isOpen() ? "stopped " : "stopped after the audit log closed ") + this.context.entityId());
    }

    /**
     * Deposits money.
     *
     * @param deposit the amount
     * @return the new balance
     * @throws IllegalArgumentException if the amount is not positive
     */
    @EntityHandler
    public Balance on(Deposit deposit) {
        if (deposit.amount() <= 0) {
            throw new IllegalArgumentException("Amount must be positive: " + deposit.amount());
        }
        this.balance += deposit.amount();
        return balance();
    }

    /**
     * Deposits money after a delay, replying asynchronously.
     *
     * @param deposit the amount and delay
     * @return the new balance, later
     */
    @EntityHandler
    public CompletionStage<Balance> on(DepositLater deposit) {
        return CompletableFuture.supplyAsync(
                () -> {
                    this.balance += deposit.amount();
                    return balance();
                },
                CompletableFuture.delayedExecutor(deposit.delayMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * Reads the balance.
     *
     * @param get the request
     * @return the balance
     */
    @EntityHandler
    public Balance on(GetBalance get) {
        return balance();
    }

    private Balance balance() {
        return new Balance(this.context.entityId(), this.balance, this.context.nodeName());
    }

    /**
     * Deposits money.
     *
     * @param amount the amount
     */
    public record Deposit(long amount) {}

    /**
     * Deposits money after a delay.
     *
     * @param amount the amount
     * @param delayMillis the delay
     */
    public record DepositLater(long amount, long delayMillis) {}

    /** Asks for the balance. */
    public record GetBalance() {}

    /**
     * The balance of an account.
     *
     * @param id the account id
     * @param balance the balance
     * @param node the node hosting the account
     */
    public record Balance(String id, long balance, String node) {}
}
