package dev.sharding.test;

import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Deposits of 1 to {@link Ledger} accounts from several threads through every node, recording per account how many
 * were acknowledged, how many had an unknown outcome, and every answer that showed a balance below what had been
 * acknowledged before the deposit was sent (a stale copy serving).
 */
public final class DepositLoad implements AutoCloseable {

    private final Supplier<List<ShardingNode>> nodes;

    private final int accounts;

    private final AtomicBoolean running = new AtomicBoolean(true);

    private final List<Thread> threads = new ArrayList<>();

    private final Map<String, AtomicLong> acked = new ConcurrentHashMap<>();

    private final Map<String, AtomicLong> unknown = new ConcurrentHashMap<>();

    private final List<String> staleAnswers = new CopyOnWriteArrayList<>();

    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

    /**
     * Starts the load.
     *
     * @param nodes the nodes to send through (asked again for every deposit)
     * @param accounts how many accounts
     * @param threads how many sending threads
     */
    public DepositLoad(Supplier<List<ShardingNode>> nodes, int accounts, int threads) {
        this.nodes = nodes;
        this.accounts = accounts;
        for (int i = 0; i < accounts; i++) {
            acked.put(id(i), new AtomicLong());
            unknown.put(id(i), new AtomicLong());
        }
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(this::run, "deposit-load-" + t);
            thread.setDaemon(true);
            this.threads.add(thread);
            thread.start();
        }
    }

    /** The id of account i. @param i the index @return the id */
    public static String id(int i) {
        return "acct-" + i;
    }

    private void run() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            List<ShardingNode> via = nodes.get();
            if (via.isEmpty()) {
                continue;
            }
            ShardingNode node = via.get(random.nextInt(via.size()));
            String id = id(random.nextInt(accounts));
            long before = acked.get(id).get();
            try {
                Ledger.Receipt r = node.region(Ledger.class)
                        .ask(id, new Ledger.Deposit(1), Ledger.Receipt.class, Duration.ofSeconds(2))
                        .get(10, TimeUnit.SECONDS);
                acked.get(id).incrementAndGet();
                if (r.balance() < before + 1) {
                    staleAnswers.add(id + " answered " + r.balance() + " from " + r.node() + " after " + before
                            + " acknowledged deposits");
                }
            } catch (Exception e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                failures.computeIfAbsent(cause.getClass().getSimpleName(), k -> new AtomicLong())
                        .incrementAndGet();
                unknown.get(id).incrementAndGet();
                if (cause instanceof dev.sharding.ClusterPartitionedException) {
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L);
                }
            }
        }
    }

    /** Acknowledged deposits so far, over all accounts. @return the count */
    public long acknowledged() {
        return acked.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Acknowledged deposits of one account. @param id the account @return the count */
    public long acknowledged(String id) {
        return acked.get(id).get();
    }

    /** Deposits of one account whose outcome is unknown. @param id the account @return the count */
    public long unknown(String id) {
        return unknown.get(id).get();
    }

    /** Answers that showed a balance below what had been acknowledged. @return descriptions */
    public List<String> staleAnswers() {
        return staleAnswers;
    }

    /** Failed deposits by exception class. @return the counts */
    public Map<String, AtomicLong> failures() {
        return failures;
    }

    /** How many accounts. @return the count */
    public int accounts() {
        return accounts;
    }

    /**
     * Waits until at least this many deposits were acknowledged in all.
     *
     * @param target the count
     */
    public void awaitAcknowledged(long target) {
        org.awaitility.Awaitility.await("deposits acknowledged")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acknowledged() >= target);
    }

    /**
     * Checks that every node answers the same balance for every account, no less than acknowledged and no more than
     * acknowledged plus those with an unknown outcome; call after {@link #close()}.
     *
     * @param through the nodes to ask
     * @throws Exception when an ask fails
     */
    public void checkEveryAccount(List<ShardingNode> through) throws Exception {
        for (int i = 0; i < accounts; i++) {
            String id = id(i);
            Long seen = null;
            for (ShardingNode n : through) {
                long balance = n.region(Ledger.class)
                        .ask(id, new Ledger.Read(), Ledger.Receipt.class)
                        .get(10, TimeUnit.SECONDS)
                        .balance();
                if (seen != null && balance != seen) {
                    throw new AssertionError(
                            id + " through " + n.nodeName() + " has balance " + balance + ", another node " + seen);
                }
                seen = balance;
            }
            if (seen == null || seen < acknowledged(id) || seen > acknowledged(id) + unknown(id)) {
                throw new AssertionError("Balance of " + id + " is " + seen + ", acknowledged " + acknowledged(id)
                        + ", unknown " + unknown(id));
            }
        }
    }

    @Override
    public void close() {
        running.set(false);
        for (Thread t : threads) {
            try {
                t.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
