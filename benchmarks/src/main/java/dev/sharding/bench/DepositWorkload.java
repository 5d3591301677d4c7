package dev.sharding.bench;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.sample.AccountState;
import dev.sharding.sample.Balance;
import dev.sharding.sample.Deposit;
import dev.sharding.sample.Deposited;
import dev.sharding.sample.GetBalance;
import dev.sharding.spi.EventJournal;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.store.JdbcStoreStatistics;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The node side of D1 and D3, the deposit workloads: D1's {@link DurableAccount} (its balance an
 * {@code EntityState<AccountState>}, written through to the store before the reply) or, for D3, the sample app's
 * event-sourced {@code Account} (a {@code Deposited} event persisted before the reply), reached through an injected
 * {@code ShardRegion}. Every node of the run runs its share of the callers; the launcher adds the nodes'
 * figures up and checks the balances ({@link DepositScenario}).
 *
 * <p>Commands: {@code D1-PRIME accounts} (ask every account once, so that every shard is allocated and its home
 * known here), {@code D1-RUN chains accounts warmupMillis measureMillis} (keep {@code chains} deposit asks outstanding
 * until the end of the measured window, then wait for the last replies), {@code D1-READ accounts} (every balance, as
 * the account answers it and as the store holds it).
 */
final class DepositWorkload {

    static final String TYPE = "account";

    private final ShardingNode node;

    private final ShardRegion<?> accounts;

    /** Whether the accounts are event-sourced (D3): the check then sums their journals, not their state rows. */
    private final boolean eventSourced;

    private final ShardingStore store;

    DepositWorkload(ShardingNode node, ShardRegion<?> accounts, ShardingStore store, boolean eventSourced) {
        this.eventSourced = eventSourced;
        this.node = node;
        this.accounts = accounts;
        this.store = store;
    }

    static String id(int i) {
        return "a-" + i;
    }

    /** Runs one command of the launcher; false if it is not one of D1's. */
    boolean command(String[] words) throws Exception {
        switch (words[0]) {
            case "D1-PRIME" ->
                NodeIo.emit("D1-PRIMED", Workloads.JSON.writeValueAsString(prime(Integer.parseInt(words[1]))));
            case "D1-RUN" ->
                NodeIo.emit(
                        "D1-DONE",
                        Workloads.JSON.writeValueAsString(run(
                                Integer.parseInt(words[1]),
                                Integer.parseInt(words[2]),
                                Long.parseLong(words[3]),
                                Long.parseLong(words[4]),
                                Integer.parseInt(words[5]))));
            case "D1-READ" ->
                NodeIo.emit("D1-BALANCES", Workloads.JSON.writeValueAsString(read(Integer.parseInt(words[1]))));
            default -> {
                return false;
            }
        }
        return true;
    }

    // ---- priming ------------------------------------------------------------------------------------------------

    /** Waits for three hosting regions, then asks every account for its balance once (each must be 0). */
    private Map<String, Object> prime(int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (shardsPerNode().size() < 3) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Only " + shardsPerNode().size() + " of 3 hosting regions answered");
            }
            Thread.sleep(100);
        }
        long t0 = System.nanoTime();
        long[] balances = balancesByAsk(n);
        for (int i = 0; i < n; i++) {
            if (balances[i] != 0) {
                throw new IllegalStateException("Account " + id(i) + " has balance " + balances[i]
                        + " before any deposit: the store is not empty");
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("prime_s", Workloads.round3(Workloads.seconds(System.nanoTime() - t0)));
        return r;
    }

    /** Shards of the account type per hosting member, for the members that answered. */
    Map<String, Integer> shardsPerNode() throws Exception {
        return MembershipWorkloads.shardsPerNode(
                node.admin().clusterState(Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS), TYPE);
    }

    /**
     * Every balance as the accounts answer {@link GetBalance}: at most 1,000 asks outstanding, failed ones asked
     * again, for up to two minutes.
     */
    private long[] balancesByAsk(int n) throws InterruptedException {
        long[] balances = new long[n];
        boolean[] done = new boolean[n];
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        int missing = n;
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        while (missing > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(missing + " of " + n + " accounts never answered GetBalance; the"
                        + " failures seen, by kind: " + failures);
            }
            Semaphore window = new Semaphore(1_000);
            CountDownLatch answered = new CountDownLatch(missing);
            for (int i = 0; i < n; i++) {
                if (done[i]) {
                    continue;
                }
                int k = i;
                window.acquire();
                accounts.ask(id(k), new GetBalance(), Balance.class, Duration.ofSeconds(10))
                        .whenComplete((balance, failure) -> {
                            if (failure == null) {
                                balances[k] = balance.balance();
                                done[k] = true;
                            } else {
                                Throwable cause = failure instanceof CompletionException c && c.getCause() != null
                                        ? c.getCause()
                                        : failure;
                                String kind = cause.getClass().getSimpleName() + ": " + cause.getMessage();
                                failures.merge(kind.length() > 300 ? kind.substring(0, 300) : kind, 1, Integer::sum);
                            }
                            window.release();
                            answered.countDown();
                        });
            }
            answered.await();
            missing = 0;
            for (boolean d : done) {
                missing += d ? 0 : 1;
            }
        }
        return balances;
    }

    // ---- the measured run ---------------------------------------------------------------------------------------

    /**
     * Keeps {@code chains} deposits outstanding: each reply sends the next deposit from its callback (which runs on
     * the node's entity executor), to an account drawn at random, of an amount drawn from 1 to 1,000. Replies that
     * arrive in the measured window are counted and their round trips recorded; every acknowledged amount is added
     * to its account's sum, every failed one to its account's uncertain sum (a deposit whose ask failed may or may
     * not have been applied).
     */
    private Map<String, Object> run(int chains, int n, long warmupMillis, long measureMillis, int readPercent)
            throws InterruptedException {
        long t0 = System.nanoTime();
        long windowStart = t0 + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        long windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(measureMillis);
        DepositTally tally = new DepositTally(n, chains, windowStart, windowEnd);
        for (int c = 0; c < chains; c++) {
            next(tally, n, readPercent);
        }
        sleepUntil(windowStart);
        Optional<JdbcStoreStatistics> statsStart = statistics();
        sleepUntil(windowEnd);
        Optional<JdbcStoreStatistics> statsEnd = statistics();
        boolean drained = tally.awaitStopped(60);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("node", node.nodeName());
        r.put("chains", chains);
        tally.putCounts(r);
        r.put("drained", drained);
        r.put("histogram", tally.histogram());
        if (statsStart.isPresent() && statsEnd.isPresent()) {
            JdbcStoreStatistics a = statsStart.get();
            JdbcStoreStatistics b = statsEnd.get();
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("batches", b.batches() - a.batches());
            s.put("operations", b.operations() - a.operations());
            s.put("failed_batches", b.failedBatches() - a.failedBatches());
            s.put("largest_batch_since_start", b.largestBatch());
            r.put("store_window", s);
        }
        try {
            r.put("shards", shardsPerNode());
        } catch (Exception e) {
            r.put("shards", null);
        }
        tally.putSums(r);
        return r;
    }

    /**
     * Sends one ask of a chain (a deposit, or with {@code readPercent} chance a {@link GetBalance}) and, from its
     * callback (on the node's entity executor), the next.
     */
    private void next(DepositTally tally, int n, int readPercent) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int k = random.nextInt(n);
        long amount = random.nextInt(100) < readPercent ? 0 : 1 + random.nextInt(1_000);
        long start = System.nanoTime();
        CompletableFuture<Balance> ask;
        try {
            ask = amount == 0
                    ? accounts.ask(id(k), new GetBalance(), Balance.class)
                    : accounts.ask(id(k), new Deposit(amount), Balance.class);
        } catch (RuntimeException e) {
            ask = CompletableFuture.failedFuture(e);
        }
        ask.whenComplete((balance, failure) -> {
            if (!tally.record(k, amount, start, System.nanoTime(), failure)) {
                return; // the window has ended: this chain stops
            }
            if (failure == null) {
                next(tally, n, readPercent);
            } else {
                // a failed ask may have failed at once: the next one from another thread, not recursively
                CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS).execute(() -> next(tally, n, readPercent));
            }
        });
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /**
     * The store's group-commit counters, when it is the JDBC store. The starter wraps the store over its embedded
     * database in a class of its own that keeps the JDBC store in a package-private method; the benchmark looks
     * through it (and reports nothing when it cannot).
     */
    private Optional<JdbcStoreStatistics> statistics() {
        ShardingStore s = store;
        if (!(s instanceof JdbcShardingStore)) {
            try {
                Method inner = s.getClass().getDeclaredMethod("store");
                inner.setAccessible(true);
                if (inner.invoke(s) instanceof ShardingStore wrapped) {
                    s = wrapped;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return s instanceof JdbcShardingStore jdbc ? Optional.of(jdbc.statistics()) : Optional.empty();
    }

    // ---- the check ----------------------------------------------------------------------------------------------

    /**
     * Every balance twice: as the account answers {@link GetBalance} (the entity's state, written through before
     * each deposit's reply) and as the store holds it (read from the database through the node's store and decoded
     * as the node does). At most 64 store reads outstanding.
     */
    /** D3: the sum of the deposits in an account's journal, read a page at a time from {@code from}. */
    private CompletableFuture<Long> journalBalance(EventCodec events, String id, long from, long sum) {
        return store.eventsOf(TYPE, id, from, EventJournal.MAX_PAGE).thenCompose(page -> {
            long total = sum;
            for (PersistedEvent e : page) {
                total += ((Deposited) events.decode(e)).amount();
            }
            return page.size() < EventJournal.MAX_PAGE
                    ? CompletableFuture.completedFuture(total)
                    : journalBalance(events, id, page.get(page.size() - 1).sequenceNr() + 1, total);
        });
    }

    private Map<String, Object> read(int n) throws Exception {
        // the callers have stopped: how far behind the sample's history projection is, and how long it takes to catch
        // up
        Map<String, Object> projection = eventSourced ? ProjectionCatchUp.measure(node, "account-history") : null;
        long[] byAsk = balancesByAsk(n);
        MessageCodec codec = new JacksonMessageCodec(List.of(AccountState.class), 64 * 1024);
        EventCodec events = new EventCodec(TYPE, Deposited.class, List.of(), 64 * 1024);
        long[] stored = new long[n];
        List<String> failures = new ArrayList<>();
        Semaphore window = new Semaphore(64);
        CountDownLatch read = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int k = i;
            window.acquire();
            CompletableFuture<Long> balance = eventSourced
                    ? journalBalance(events, id(k), 0, 0)
                    : store.read(TYPE, id(k))
                            .thenApply(state -> state.map(s -> {
                                        byte[] bytes = s.state();
                                        return ((AccountState) codec.decode(bytes, 0, bytes.length)).balance();
                                    })
                                    .orElse(0L));
            balance.whenComplete((sum, failure) -> {
                try {
                    if (failure != null) {
                        synchronized (failures) {
                            failures.add(id(k) + ": " + failure);
                        }
                    } else {
                        stored[k] = sum;
                    }
                } catch (RuntimeException e) {
                    synchronized (failures) {
                        failures.add(id(k) + ": " + e);
                    }
                } finally {
                    window.release();
                    read.countDown();
                }
            });
        }
        if (!read.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Reading " + n + " balances from the store took more than 120 s");
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(failures.size() + " store reads failed, first: " + failures.get(0));
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("by_ask", byAsk);
        r.put("stored", stored);
        if (projection != null) {
            r.put("projection", projection);
        }
        return r;
    }
}
