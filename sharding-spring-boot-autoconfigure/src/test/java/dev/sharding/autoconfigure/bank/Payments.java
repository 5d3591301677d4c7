package dev.sharding.autoconfigure.bank;

import dev.sharding.ShardRegion;
import java.util.concurrent.CompletableFuture;

/**
 * A service of the application that reaches accounts through the region injected by its generic type.
 */
public class Payments {

    private final ShardRegion<Account> accounts;

    /**
     * Creates the service.
     *
     * @param accounts the accounts
     */
    public Payments(ShardRegion<Account> accounts) {
        this.accounts = accounts;
    }

    /**
     * Deposits into an account.
     *
     * @param id the account id
     * @param amount the amount
     * @return the new balance
     */
    public CompletableFuture<Account.Balance> deposit(String id, long amount) {
        return this.accounts.ask(id, new Account.Deposit(amount), Account.Balance.class);
    }

    /**
     * Deposits into an account after a delay, handled asynchronously by the entity.
     *
     * @param id the account id
     * @param amount the amount
     * @param delayMillis how long the entity takes
     * @return the new balance
     */
    public CompletableFuture<Account.Balance> depositLater(String id, long amount, long delayMillis) {
        return this.accounts.ask(
                id,
                new Account.DepositLater(amount, delayMillis),
                Account.Balance.class,
                java.time.Duration.ofSeconds(30));
    }

    /**
     * Reads an account's balance.
     *
     * @param id the account id
     * @return the balance
     */
    public CompletableFuture<Account.Balance> balance(String id) {
        return this.accounts.ask(id, new Account.GetBalance(), Account.Balance.class);
    }

    /**
     * The region the service uses.
     *
     * @return the accounts region
     */
    public ShardRegion<Account> accounts() {
        return this.accounts;
    }
}
