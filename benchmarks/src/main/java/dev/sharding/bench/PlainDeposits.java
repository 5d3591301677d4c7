package dev.sharding.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * D0, the baseline of D1: the same deposits served the way a Spring service without sharding would, one database
 * transaction per deposit over the application's HikariCP pool: {@code UPDATE account SET balance = balance + ?},
 * then the new balance read back for the reply, committed before it is counted; nothing kept in memory. Each node JVM
 * runs its share of the callers as threads that each send one deposit at a time (a client that spreads its callers
 * over the three JVMs in turn), over the same accounts, warm-up, window and balance check as D1.
 *
 * <p>Plain JDBC on the pool, as {@code JdbcClient} runs it underneath, without its small overhead: the baseline is, if
 * anything, a little faster than the service it stands for.
 */
final class PlainDeposits {

    private final DataSource dataSource;

    private final String name;

    PlainDeposits(DataSource dataSource, String name) {
        this.dataSource = dataSource;
        this.name = name;
    }

    /** Handles a D0 command; false when the command is not one. */
    boolean command(String[] words) throws Exception {
        switch (words[0]) {
            case "D0-PRIME" ->
                NodeIo.emit(
                        "D0-PRIMED",
                        Workloads.JSON.writeValueAsString(
                                prime(Integer.parseInt(words[1]), Boolean.parseBoolean(words[2]))));
            case "D0-RUN" ->
                NodeIo.emit(
                        "D0-DONE",
                        Workloads.JSON.writeValueAsString(run(
                                Integer.parseInt(words[1]),
                                Integer.parseInt(words[2]),
                                Long.parseLong(words[3]),
                                Long.parseLong(words[4]),
                                Integer.parseInt(words[5]))));
            case "D0-READ" ->
                NodeIo.emit("D0-BALANCES", Workloads.JSON.writeValueAsString(read(Integer.parseInt(words[1]))));
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Creates the table with every account at 0 (the first node), or checks it is there (the others). */
    private Map<String, Object> prime(int n, boolean create) throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = dataSource.getConnection()) {
            if (create) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS account");
                    st.execute("CREATE TABLE account (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO account (id, balance) VALUES (?, 0)")) {
                    for (int i = 0; i < n; i++) {
                        ps.setString(1, DepositWorkload.id(i));
                        ps.addBatch();
                        if (i % 1_000 == 999) {
                            ps.executeBatch();
                        }
                    }
                    ps.executeBatch();
                }
                c.commit();
            }
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT COUNT(*), COALESCE(SUM(balance), 0) FROM account")) {
                rs.next();
                if (rs.getLong(1) != n || rs.getLong(2) != 0) {
                    throw new IllegalStateException("Table account has " + rs.getLong(1) + " rows summing "
                            + rs.getLong(2) + ", not " + n + " at 0");
                }
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("prime_s", Workloads.round3(Workloads.seconds(System.nanoTime() - t0)));
        return r;
    }

    /** {@code callers} threads, each depositing one at a time until the window has ended. */
    private Map<String, Object> run(int callers, int n, long warmupMillis, long measureMillis, int readPercent)
            throws InterruptedException {
        long windowStart = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        long windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(measureMillis);
        DepositTally tally = new DepositTally(n, callers, windowStart, windowEnd);
        for (int t = 0; t < callers; t++) {
            Thread caller = new Thread(() -> deposits(tally, n, readPercent), "d0-caller-" + t);
            caller.setDaemon(true);
            caller.start();
        }
        boolean drained = tally.awaitStopped(TimeUnit.MILLISECONDS.toSeconds(warmupMillis + measureMillis) + 60);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("node", name);
        r.put("chains", callers);
        tally.putCounts(r);
        r.put("drained", drained);
        r.put("histogram", tally.histogram());
        tally.putSums(r);
        return r;
    }

    /** One caller: deposits, or with {@code readPercent} chance reads of a balance, one at a time. */
    private void deposits(DepositTally tally, int n, int readPercent) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (true) {
            int k = random.nextInt(n);
            long amount = random.nextInt(100) < readPercent ? 0 : 1 + random.nextInt(1_000);
            long start = System.nanoTime();
            Throwable failure = null;
            try {
                if (amount == 0) {
                    balance(DepositWorkload.id(k));
                } else {
                    deposit(DepositWorkload.id(k), amount);
                }
            } catch (SQLException | RuntimeException e) {
                failure = e;
            }
            if (!tally.record(k, amount, start, System.nanoTime(), failure)) {
                return;
            }
        }
    }

    /** One deposit, one transaction: the new balance once committed. */
    private long deposit(String id, long amount) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                long balance;
                try (PreparedStatement up =
                        c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
                    up.setLong(1, amount);
                    up.setString(2, id);
                    if (up.executeUpdate() != 1) {
                        throw new SQLException("No account " + id);
                    }
                }
                try (PreparedStatement read = c.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
                    read.setString(1, id);
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        balance = rs.getLong(1);
                    }
                }
                c.commit();
                return balance;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** One read: a SELECT in its own (auto-commit) transaction. */
    private long balance(String id) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement read = c.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
            read.setString(1, id);
            try (ResultSet rs = read.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("No account " + id);
                }
                return rs.getLong(1);
            }
        }
    }

    /** Every balance as the table holds it (there is no other copy to compare it with). */
    private Map<String, Object> read(int n) throws SQLException {
        long[] stored = new long[n];
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, balance FROM account")) {
            while (rs.next()) {
                String id = rs.getString(1);
                stored[Integer.parseInt(id.substring(id.indexOf('-') + 1))] = rs.getLong(2);
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("by_ask", stored);
        r.put("stored", stored);
        return r;
    }
}
