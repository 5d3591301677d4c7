package dev.sharding.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.HdrHistogram.Histogram;

/**
 * The load generator of the H workloads, in the launcher's JVM: a closed loop of keep-alive connections, the same
 * number to each node, each sending its next request as soon as the previous one is answered, one thread with one
 * selector per node ({@link LoadLoop}), as {@code wrk -t1} per node does. A request is a deposit
 * {@code POST /accounts/<prefix><random>/deposit} of a random amount from 1 to 100, or with {@code readPercent} chance
 * a {@code GET /accounts/<prefix><random>}; the prefix is {@code a-} for the measured phases and {@code w-} for a
 * warm-up before them, whose accounts are others. The run is a row of phases of equal length one after the other
 * (cold, warming, warm); a request counts in the phase in which its answer arrived. Answered deposits (200) are added
 * up per account for the balance check, as are those whose outcome is unknown.
 */
final class HttpLoad {

    /** The phases, in order. */
    static final List<String> PHASES = List.of("cold", "warming", "warm");

    /** The accounts of the measured phases, {@code a-<i>}, those the balance check reads. */
    static final String MEASURED_PREFIX = "a-";

    /** The accounts of a warm-up before them. */
    static final String WARM_UP_PREFIX = "w-";

    /** How long a connection waits for an answer before it counts the request as failed and reconnects. */
    static final int TIMEOUT_MILLIS = 30_000;

    private final List<Integer> ports;

    private final int connectionsPerNode;

    private final int accounts;

    private final String idPrefix;

    private final int readPercent;

    private final long phaseNanos;

    HttpLoad(
            List<Integer> ports,
            int connectionsPerNode,
            int accounts,
            String idPrefix,
            int readPercent,
            long phaseNanos) {
        this.ports = ports;
        this.connectionsPerNode = connectionsPerNode;
        this.accounts = accounts;
        this.idPrefix = idPrefix;
        this.readPercent = readPercent;
        this.phaseNanos = phaseNanos;
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
        List<LoadLoop> loops = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch connected = new CountDownLatch(ports.size());
        CountDownLatch go = new CountDownLatch(1);
        for (int port : ports) {
            LoadLoop loop =
                    new LoadLoop(port, connectionsPerNode, accounts, idPrefix, readPercent, phaseNanos, connected, go);
            loops.add(loop);
            Thread t = new Thread(loop, "h-load-" + port);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        connected.await(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        for (LoadLoop loop : loops) {
            loop.start = start;
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
        for (int i = 0; i < loops.size(); i++) {
            threads.get(i).join(TIMEOUT_MILLIS + 10_000L);
            allStopped &= loops.get(i).stopped && !threads.get(i).isAlive();
        }
        List<PhaseTally> phases = new ArrayList<>();
        for (int k = 0; k < PHASES.size(); k++) {
            PhaseTally all = new PhaseTally();
            for (LoadLoop loop : loops) {
                all.add(loop.tallies[k]);
            }
            phases.add(all);
        }
        long connects = 0;
        long late = 0;
        long[] a = new long[accounts];
        long[] u = new long[accounts];
        for (LoadLoop loop : loops) {
            connects += loop.connects;
            late += loop.late;
            for (int i = 0; i < accounts; i++) {
                a[i] += loop.acked[i];
                u[i] += loop.uncertain[i];
            }
        }
        return new Outcome(phases, connects, late, a, u, allStopped);
    }
}
