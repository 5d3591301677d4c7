package dev.sharding.sample;

import dev.sharding.EntityType;
import dev.sharding.Projection;
import dev.sharding.store.JdbcShardingStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The account history ({@link AccountHistory}): its table, created at startup where it is missing, and the projection
 * that fills it, registered with the node as an entity type. Made when the store is a database
 * ({@code sharding.store.type=jdbc}, the default), whose transactions the projection writes in; a node whose store
 * is in memory keeps no history.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "sharding.store.type", havingValue = "jdbc", matchIfMissing = true)
public class AccountHistoryConfiguration {

    /**
     * The read model, its table created.
     *
     * @param store the sharding store, whose database holds the table
     * @return the history
     */
    @Bean
    AccountHistory accountHistory(JdbcShardingStore store) {
        AccountHistory history = new AccountHistory(store.dataSource());
        history.createTable();
        return history;
    }

    /**
     * The projection that keeps the history: {@value AccountHistory#SLICES} workers over the account shards, each
     * writing its rows in the transaction of its offset (exactly once).
     *
     * @param history the read model, so that its table exists before the projection starts
     * @return the projection's entity type
     */
    @Bean
    EntityType<?> accountHistoryProjection(AccountHistory history) {
        return Projection.ofJdbc(
                AccountHistory.PROJECTION, Account.TYPE, AccountHistory.SLICES, AccountHistory::record);
    }
}
