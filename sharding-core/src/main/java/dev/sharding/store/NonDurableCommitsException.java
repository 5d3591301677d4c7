package dev.sharding.store;

import dev.sharding.ShardingException;
import java.io.Serial;

/**
 * The database of a {@link JdbcShardingStore} is set to acknowledge commits before they are on disk, and the store
 * cannot change that for its own connections: an acknowledged write could be lost when the database's process (for
 * H2, the node that serves the file) or machine dies. The store does not use such a database unless
 * {@link JdbcStoreSettings#allowNonDurableCommits()} says so. Names the database setting, its value and the fix.
 */
public class NonDurableCommitsException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String setting;

    private final String value;

    private final String problem;

    private final String fix;

    /**
     * Creates the exception.
     *
     * @param setting the database's setting, as the database names it ({@code WRITE_DELAY}, {@code fsync})
     * @param value its value
     * @param problem what the setting does and why the store cannot change it
     * @param fix what the user can do
     */
    public NonDurableCommitsException(String setting, String value, String problem, String fix) {
        super(problem + " " + fix);
        this.setting = setting;
        this.value = value;
        this.problem = problem;
        this.fix = fix;
    }

    /**
     * The database's setting that makes commits non-durable.
     *
     * @return its name, as the database spells it
     */
    public String setting() {
        return setting;
    }

    /**
     * The setting's value.
     *
     * @return the value
     */
    public String value() {
        return value;
    }

    /**
     * What the setting does and why the store cannot change it.
     *
     * @return the description
     */
    public String problem() {
        return problem;
    }

    /**
     * What the user can do: change the setting, or accept non-durable commits.
     *
     * @return the advice
     */
    public String fix() {
        return fix;
    }
}
