package dev.sharding.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * How a statement that locks rows of one type names their keys: as {@code (type_name, key)} row values, or as the
 * type and a list of keys. Each product finds rows by the primary key only for one of the two forms; its dialect says
 * which ({@link PortableSql#keyLocking()}). Statements are padded to a power of two keys
 * ({@link #padded(int)}), repeating the last, to keep few distinct shapes.
 */
enum KeyLocking {

    /**
     * {@code (type_name, key) IN ((?, ?), ...)}: H2 uses the primary key for a list of row values, but for
     * {@code type_name = ? AND key IN (...)} only its first column, and would read every row of the type.
     */
    ROW_VALUES {
        @Override
        String condition(String keyColumn, int size) {
            return "(type_name, " + keyColumn + ") IN (" + String.join(", ", Collections.nCopies(size, "(?, ?)")) + ")";
        }

        @Override
        void bind(PreparedStatement ps, String typeName, int size, KeyBinder keys) throws SQLException {
            int p = 1;
            for (int i = 0; i < size; i++) {
                ps.setString(p++, typeName);
                keys.bind(ps, p++, i);
            }
        }
    },

    /**
     * {@code type_name = ? AND key IN (?, ...)}: PostgreSQL's btree scan under {@code type_name = ?} finds exactly the
     * listed keys.
     */
    ID_LIST {
        @Override
        String condition(String keyColumn, int size) {
            return "type_name = ? AND " + keyColumn + " IN (" + String.join(", ", Collections.nCopies(size, "?")) + ")";
        }

        @Override
        void bind(PreparedStatement ps, String typeName, int size, KeyBinder keys) throws SQLException {
            ps.setString(1, typeName);
            for (int i = 0; i < size; i++) {
                keys.bind(ps, i + 2, i);
            }
        }
    };

    /**
     * The condition that selects the rows of one type with some keys.
     *
     * @param keyColumn the column of the key within the type
     * @param size how many keys the statement names, padded
     * @return the condition, for a {@code WHERE}
     */
    abstract String condition(String keyColumn, int size);

    /**
     * Binds the parameters of {@link #condition}, from the first on.
     *
     * @param ps the statement
     * @param typeName the type
     * @param size how many keys the statement names, padded
     * @param keys binds the key of each position
     * @throws SQLException on failure
     */
    abstract void bind(PreparedStatement ps, String typeName, int size, KeyBinder keys) throws SQLException;

    /**
     * How many keys a statement for {@code count} keys names: the next power of two.
     *
     * @param count the keys, at least one
     * @return the padded count
     */
    static int padded(int count) {
        int size = Integer.highestOneBit(count);
        return size == count ? size : size * 2;
    }

    /**
     * Runs a query over some ids of one type, one statement per {@link PortableSql#LOCK_CHUNK} ids, each padded
     * ({@link #padded}), and hands every row to the reader.
     *
     * @param sql the dialect, which prepares the statements
     * @param connection the connection
     * @param typeName the type
     * @param ids the ids (sorted, for a statement that locks)
     * @param query the statement for a padded number of ids, from the condition of {@link #condition} on
     *     {@code entity_id}
     * @param rows reads each row of the result
     * @throws SQLException on failure
     */
    void selectIds(
            PortableSql sql,
            Connection connection,
            String typeName,
            List<String> ids,
            Function<String, String> query,
            RowReader rows)
            throws SQLException {
        for (int from = 0; from < ids.size(); from += PortableSql.LOCK_CHUNK) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + PortableSql.LOCK_CHUNK));
            int size = padded(chunk.size());
            try (PreparedStatement ps = sql.prepare(connection, query.apply(condition("entity_id", size)))) {
                bind(ps, typeName, size, (s, p, i) -> s.setString(p, chunk.get(Math.min(i, chunk.size() - 1))));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.read(rs);
                    }
                }
            }
        }
    }

    /** Reads one row of a result. */
    @FunctionalInterface
    interface RowReader {

        /**
         * Reads the current row.
         *
         * @param rs the result, on the row
         * @throws SQLException on failure
         */
        void read(ResultSet rs) throws SQLException;
    }

    /** Binds the key at a position of a padded statement to a parameter. */
    @FunctionalInterface
    interface KeyBinder {

        /**
         * Binds one key.
         *
         * @param ps the statement
         * @param parameter the parameter's index
         * @param position the key's position in the padded list; past the real keys, the last is repeated
         * @throws SQLException on failure
         */
        void bind(PreparedStatement ps, int parameter, int position) throws SQLException;
    }
}
