package dev.sharding.internal.transport;

import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where JDBC discovery keeps its table: the store's database, under the store's table prefix.
 *
 * @param dataSource the database
 * @param table the table name, an unquoted SQL identifier
 */
public record JdbcDiscovery(DataSource dataSource, String table) {

    /**
     * Checks the arguments.
     */
    public JdbcDiscovery {
        Objects.requireNonNull(dataSource, "dataSource");
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("Invalid discovery table name " + table);
        }
    }

    /**
     * The JDBC_PING2 attributes that make it use this table.
     *
     * @return XML attributes
     */
    String attributes() {
        return "initialize_sql=\"CREATE TABLE IF NOT EXISTS " + table + " (address varchar(200) NOT NULL, name"
                + " varchar(200), cluster varchar(200) NOT NULL, ip varchar(200) NOT NULL, coord boolean, PRIMARY"
                + " KEY (address))\" insert_single_sql=\"INSERT INTO " + table + " values (?, ?, ?, ?, ?)\""
                + " delete_single_sql=\"DELETE FROM " + table + " WHERE address=?\" clear_sql=\"DELETE FROM "
                + table + " WHERE cluster=?\" select_all_pingdata_sql=\"SELECT address, name, ip, coord FROM "
                + table + " WHERE cluster=?\"";
    }
}
