package dev.sharding.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;
import org.HdrHistogram.Histogram;

/**
 * The load generator of the H workloads, in the launcher's JVM: a closed loop of keep-alive connections
 * ({@link HttpConnection}), the same number to each node, each sending its next request as soon as the previous one
 * is answered, as {@code wrk} does. A request is a deposit {@code POST /accounts/a-<random>/deposit} of a random amount
 * from 1 to 100, or with {@code readPercent} chance a {@code GET /accounts/a-<random>}. The run is a row of phases of
 * equal length one after the other (cold, warming, warm); a request counts in the phase in which its answer arrived.
 * Answered deposits (200) are added up per account for the balance check, as are those whose outcome is unknown.
 */
final class HttpLoad {

    /** The phases, in order. */
    static final List<String> PHASES = List.of("cold", "warming", "warm");

    /** How long a connection waits for an answer before it counts the request as failed and reconnects. */
    static final int TIMEOUT_MILLIS = 30_000;

    private final List<Integer> ports;

    private final int connectionsPerNode;

    private final int accounts;

    private final int readPercent;

    private final long phaseNanos;

    private final AtomicLongArray acked;

    private final AtomicLongArray uncertain;

    HttpLoad(List<Integer> ports, int connectionsPerNode, int accounts, int readPercent, long phaseNanos) {
        this.ports = ports;
        this.connectionsPerNode = connectionsPerNode;
        this.accounts = accounts;
        this.readPercent = readPercent;
        this.phaseNanos = phaseNanos;
        this.acked = new AtomicLongArray(accounts);
        this.uncertain = new AtomicLongArray(accounts);
    }

    /** What one connection counted in one phase. */
    static final class PhaseTally {

        final Histogram deposits = new Histogram(3);

        final Histogram reads = new Histogram(3);

        long ok;

        long clientErrors;

        long serverErrors;

        long ioErrors;

        void add(PhaseTally o) {
            deposits.add(o.deposits);
            reads.add(o.reads);
            ok += o.ok;
            clientErrors += o.clientErrors;
            serverErrors += o.serverErrors;
            ioErrors += o.ioErrors;
        }
    }

    /**
     * What the run counted.
     *
     * @param phases per phase, all connections merged
     * @param connects connections opened (Tomcat closes one after 100 requests)
     * @param lateAnswers answers that arrived after the last phase (counted in the check, not in a phase)
     * @param acked acknowledged amount per account
     * @param uncertain amount of deposits with unknown outcome per account
     * @param allStopped whether every connection stopped within its timeout after the last phase
     */
    record Outcome(
            List<PhaseTally> phases,
            long connects,
            long lateAnswers,
            long[] acked,
            long[] uncertain,
            boolean allStopped) {}

    /**
     * Runs the phases.
     *
     * @param boundary called on this thread at the start (0) and at the end of each phase (1, 2, 3), at once
     * @return the counts
     */
    Outcome run(IntConsumer boundary) throws InterruptedException {
        List<Worker> workers = new ArrayList<>();
        CountDownLatch connected = new CountDownLatch(ports.size() * connectionsPerNode);
        CountDownLatch go = new CountDownLatch(1);
        for (int port : ports) {
            for (int c = 0; c < connectionsPerNode; c++) {
                Worker w = new Worker(port, connected, go);
                workers.add(w);
                Thread t = new Thread(w, "h-load-" + port + "-" + c);
                t.setDaemon(true);
                w.thread = t;
                t.start();
            }
        }
        connected.await(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        for (Worker w : workers) {
            w.start = start;
        }
        go.countDown();
        boundary.accept(0);
        for (int k = 1; k <= PHASES.size(); k++) {
            long until = start + k * phaseNanos;
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
            boundary.accept(k);
        }
        boolean allStopped = true;
        for (Worker w : workers) {
            w.thread.join(TIMEOUT_MILLIS + 5_000L);
            allStopped &= !w.thread.isAlive();
        }
        List<PhaseTally> phases = new ArrayList<>();
        long connects = 0;
        long late = 0;
        for (int k = 0; k < PHASES.size(); k++) {
            PhaseTally all = new PhaseTally();
            for (Worker w : workers) {
                all.add(w.tallies[k]);
            }
            phases.add(all);
        }
        for (Worker w : workers) {
            connects += w.connection.connects();
            late += w.late;
        }
        long[] a = new long[accounts];
        long[] u = new long[accounts];
        for (int i = 0; i < accounts; i++) {
            a[i] = acked.get(i);
            u[i] = uncertain.get(i);
        }
        return new Outcome(phases, connects, late, a, u, allStopped);
    }

    /** One connection's loop. */
    private final class Worker implements Runnable {

        final HttpConnection connection;

        final PhaseTally[] tallies = new PhaseTally[PHASES.size()];

        final CountDownLatch connected;

        final CountDownLatch go;

        volatile long start;

        Thread thread;

        long late;

        Worker(int port, CountDownLatch connected, CountDownLatch go) {
            this.connection = new HttpConnection("127.0.0.1", port, TIMEOUT_MILLIS);
            this.connected = connected;
            this.go = go;
            for (int k = 0; k < tallies.length; k++) {
                tallies[k] = new PhaseTally();
            }
        }

        @Override
        public void run() {
            try {
                connection.connect();
            } catch (IOException e) {
                // counted as the first request's failure
            }
            connected.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long end = start + PHASES.size() * phaseNanos;
            try {
                while (System.nanoTime() < end) {
                    int account = random.nextInt(accounts);
                    String id = DepositWorkload.id(account);
                    boolean read = readPercent > 0 && random.nextInt(100) < readPercent;
                    long amount = 1 + random.nextInt(100);
                    byte[] request = read ? connection.balance(id) : connection.deposit(id, amount);
                    long t0 = System.nanoTime();
                    int status;
                    try {
                        status = connection.exchange(request, false).status();
                    } catch (IOException | RuntimeException e) {
                        status = -1;
                    }
                    long t1 = System.nanoTime();
                    if (!read) {
                        if (status >= 200 && status < 300) {
                            acked.addAndGet(account, amount);
                        } else if (status < 400 || status >= 500) {
                            uncertain.addAndGet(account, amount);
                        }
                    }
                    int phase = (int) ((t1 - start) / phaseNanos);
                    if (phase >= tallies.length) {
                        late++;
                    } else {
                        PhaseTally t = tallies[phase];
                        (read ? t.reads : t.deposits).recordValue(Math.max(1, (t1 - t0) / 1_000));
                        if (status < 0) {
                            t.ioErrors++;
                        } else if (status < 300) {
                            t.ok++;
                        } else if (status < 500) {
                            t.clientErrors++;
                        } else {
                            t.serverErrors++;
                        }
                    }
                    if (status < 0) {
                        // a node that refuses connections would otherwise be hammered in a tight loop
                        Thread.sleep(10);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                connection.close();
            }
        }
    }
}
