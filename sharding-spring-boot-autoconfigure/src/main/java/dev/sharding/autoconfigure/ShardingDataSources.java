package dev.sharding.autoconfigure;

import java.util.Arrays;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Chooses the DataSource of the sharding store as Spring Session JDBC and Quartz do: the one marked
 * {@link ShardingDataSource}, else the application's only or primary one, else none (the embedded database). Two or
 * more DataSources with none of them marked or primary is an error, not a reason to fall back silently.
 */
final class ShardingDataSources {

    private ShardingDataSources() {}

    /**
     * The DataSource of the store.
     *
     * @param qualified the DataSource marked {@link ShardingDataSource}, if any
     * @param all every DataSource of the application
     * @param beanFactory for the names of the DataSource beans in a failure report
     * @return the DataSource, or {@code null} for the embedded database
     * @throws ShardingConfigurationException if the choice is ambiguous
     */
    static @Nullable DataSource choose(
            ObjectProvider<DataSource> qualified, ObjectProvider<DataSource> all, ListableBeanFactory beanFactory) {
        DataSource marked = qualified.getIfUnique();
        if (marked != null) {
            return marked;
        }
        String[] names = beanFactory.getBeanNamesForType(DataSource.class);
        if (names.length > 1 && qualified.stream().count() > 1) {
            throw new ShardingConfigurationException(
                    "The sharding store cannot choose among the DataSource beans " + Arrays.toString(names)
                            + ": more than one is marked @ShardingDataSource.",
                    "Mark exactly one DataSource bean @ShardingDataSource.",
                    null);
        }
        DataSource unique = all.getIfUnique();
        if (unique == null && names.length > 1) {
            throw new ShardingConfigurationException(
                    "The sharding store cannot choose among the application's "
                            + names.length + " DataSource beans " + Arrays.toString(names) + ": none of them is marked "
                            + "@ShardingDataSource or @Primary.",
                    "Mark the DataSource bean meant for entity state, shard epochs and remembered entities "
                            + "@ShardingDataSource, or make one of them @Primary.",
                    null);
        }
        return unique;
    }
}
