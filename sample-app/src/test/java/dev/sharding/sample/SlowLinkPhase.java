package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.sample.PartitionProcessIT.Node;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.jspecify.annotations.Nullable;

/**
 * A gray failure on a cluster that is already up: one member (not the coordinator) stays alive but its link is slowed
 * to {@value #RATE} both ways with a token bucket for {@link #SLOW} s, under the clients' deposit load, and then
 * restored. The accounts the other members host must keep at least half their rate, measured on the deposits sent to
 * the other nodes against a window of {@link #BASELINE} just before (their p99 and longest stall are printed, not
 * bounded: a time limit on a shared 2-core machine measures the machine as much as the cluster); the slow
 * member's own accounts may fail (503, timeouts) or move to others if it is suspected and removed. Afterwards the slow
 * member is back in every view, every account takes deposits again, no acknowledged deposit is lost and every node
 * answers the same balance.
 *
 * <p>The slow node's traffic (requests sent to it, and those for accounts it hosts) goes through clients of its own
 * from the baseline on ({@link DepositLoad#divert}), so that a client waiting on the slow link holds up no request to
 * the others: what is measured is the cluster, not the test's clients. It runs on fresh accounts, so that its books
 * start at zero.
 *
 * <p>Cost: about 35 s of wall time on the cluster a scenario already started (a few seconds for the first deposits,
 * {@link #BASELINE} before, {@link #SLOW} slowed, the return to one view and the balance check), no JVM started. Needs
 * {@code tc} and the kernel's {@code tbf}; without them it reports why and does nothing.
 */
final class SlowLinkPhase {

    /** The slowed link's rate, in tc's units: a few hundred bytes a second once TCP's headers are paid. */
    static final String RATE = "8kbit";

    static final Duration BASELINE = Duration.ofSeconds(6);

    static final Duration SLOW = Duration.ofSeconds(12);

    /**
     * Whether the others' rate is asserted (the default), or only reported
     * ({@code -Dpartition.it.slow-link.timing=false}, for a machine too loaded to keep the baseline's pace). Losses and
     * balances are asserted always. Before the store's writer stopped waiting for rows another transaction holds, 2
     * runs of 5 failed here: the nodes that took over the slow member's shards stopped every durable write for 8 to
     * 10 s, their writer waiting for a shard-epoch row the slow member's transaction held on the H2 server.
     */
    private static final boolean STRICT = !"false".equals(System.getProperty("partition.it.slow-link.timing"));

    private static final int ACCOUNTS = 100;

    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static final Duration REJOIN = Duration.ofSeconds(60);

    /** Checks every node's balances against a load's books, as the scenario does after its own load. */
    @FunctionalInterface
    interface BalanceCheck {
        void check(DepositLoad load, SoftAssertions soft);
    }

    private final LabProbe probe = new LabProbe(Duration.ofSeconds(2));

    private final NetnsLab lab;

    private final List<Node> nodes;

    private final Consumer<String> report;

    SlowLinkPhase(NetnsLab lab, List<Node> nodes, Consumer<String> report) {
        this.lab = lab;
        this.nodes = List.copyOf(nodes);
        this.report = report;
    }

    /** Runs the phase and asserts what the class says. */
    void run(String name, BalanceCheck balances) throws Exception {
        String tag = "[" + name + "/slow-link] ";
        Optional<String> why = lab.shapingUnavailable();
        if (why.isPresent()) {
            report.accept(tag + "skipped: it " + why.get());
            return;
        }
        long phaseStarted = System.nanoTime();
        String coordinator = probe.coordinatorOf(nodes.get(0));
        Node slow = nodes.stream()
                .filter(n -> !n.name().equals(coordinator))
                .findFirst()
                .orElseThrow();
        Node observer = nodes.stream()
                .filter(n -> n.name().equals(coordinator))
                .findFirst()
                .orElse(nodes.get(0));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            ids.add(String.format("sl-%s-acct-%03d", name, i));
        }
        DepositLoad load = new DepositLoad(
                nodes.stream()
                        .map(n -> new DepositLoad.Target(n.name(), n.url(""), false))
                        .toList(),
                ids);
        Queue<DepositLoad.Sample> samples = new ConcurrentLinkedQueue<>();
        SoftAssertions soft = new SoftAssertions();
        AtomicLong removedAt = new AtomicLong(-1);
        AtomicLong backAt = new AtomicLong(-1);
        long slowAt;
        long restoredAt;
        long rejoinedMs;
        boolean rejoined;
        boolean recovered;
        @Nullable Thread watch = null;
        load.start();
        try {
            assertThat(LabProbe.poll(SETTLE, () -> load.accountsWithAck() == ACCOUNTS))
                    .as("%san acknowledged deposit into each of %d accounts within %s", tag, ACCOUNTS, SETTLE)
                    .isTrue();
            long hostedBySlow = load.hostedBy(slow.name());
            load.listen(samples::add);
            load.divert(slow.name());
            long baselineAt = System.nanoTime();
            report.accept(String.format(
                    "%sload on %d fresh accounts after %d ms; coordinator %s; %s will be slowed to %s for %d s after"
                            + " %d s of baseline",
                    tag,
                    ACCOUNTS,
                    LabProbe.millisSince(phaseStarted),
                    coordinator,
                    slow.name(),
                    RATE,
                    SLOW.toSeconds(),
                    BASELINE.toSeconds()));
            watch = watchMembership(observer, slow, removedAt, backAt);
            LabProbe.pauseUntil(baselineAt + BASELINE.toNanos());

            slowAt = System.nanoTime();
            lab.slow(slow.ns(), RATE);
            Thread dumps = dumpThreadsLater(
                    nodes.stream().filter(n -> n != slow).toList(), slowAt + SLOW.toNanos() * 7 / 10, name);
            LabProbe.pauseUntil(slowAt + SLOW.toNanos());
            report.accept(tag + "link of " + slow.name() + " at the end: " + lab.shaping(slow.ns()));
            lab.unslow(slow.ns());
            restoredAt = System.nanoTime();
            dumps.join(10_000);

            Set<String> all = nodes.stream().map(Node::name).collect(Collectors.toSet());
            rejoined = LabProbe.poll(
                    REJOIN,
                    () -> nodes.stream().allMatch(n -> probe.membersOf(n).equals(all))
                            && nodes.stream().allMatch(n -> probe.status(n.url("/accounts/" + ids.get(0))) == 200));
            rejoinedMs = LabProbe.millisSince(restoredAt);
            watch.interrupt();
            watch.join(5_000);
            watch = null;
            load.divert(null);
            load.merged();
            recovered = LabProbe.poll(SETTLE, () -> load.accountsDepositedAfterMerge() == ACCOUNTS);
            report.accept(String.format(
                    "%slink restored; %s after %d ms; every account took a deposit again: %s (%d ms after the"
                            + " restore)",
                    tag,
                    rejoined ? "one view of " + all.size() + " and every node answering" : "NOT one view",
                    rejoinedMs,
                    recovered,
                    LabProbe.millisSince(restoredAt)));
            report.accept(String.format(
                    "%s%s hosted %d accounts before; as seen by %s it was %s",
                    tag,
                    slow.name(),
                    hostedBySlow,
                    observer.name(),
                    removedAt.get() < 0
                            ? "never removed from the view"
                            : "removed " + (removedAt.get() - slowAt) / 1_000_000 + " ms after the slowdown"
                                    + (backAt.get() < 0
                                            ? ", back in every view within " + rejoinedMs + " ms of the restore"
                                            : ", back " + (backAt.get() - restoredAt) / 1_000_000
                                                    + " ms after the restore")));
            soft.assertThat(rejoined)
                    .as(
                            "%swithin %s of the restore every node sees all and answers: %s",
                            tag, REJOIN, probe.views(nodes))
                    .isTrue();
            soft.assertThat(recovered)
                    .as("%severy account takes deposits again after the restore", tag)
                    .isTrue();
        } finally {
            lab.unslow(slow.ns());
            if (watch != null) {
                watch.interrupt();
            }
            load.stop();
        }
        report.accept(
                String.format("%sload stopped %d ms after the phase started", tag, LabProbe.millisSince(phaseStarted)));

        Predicate<DepositLoad.Sample> others = s -> !s.read()
                && !s.target().equals(slow.name())
                && !slow.name().equals(s.home())
                && !slow.name().equals(s.host());
        Window before = window(samples, others, slowAt - BASELINE.toNanos(), slowAt);
        Window during = window(samples, others, slowAt, slowAt + SLOW.toNanos());
        Window mine = window(
                samples,
                s -> !s.read() && (s.target().equals(slow.name()) || slow.name().equals(s.home())),
                slowAt,
                slowAt + SLOW.toNanos());
        report.accept(tag + "deposits for the others' accounts through the others, before: " + before);
        report.accept(tag + "deposits for the others' accounts through the others, slowed:  " + during);
        report.accept(tag + "deposits through " + slow.name() + " or for its accounts, slowed: " + mine);
        report.accept(tag + "the others' acknowledged deposits a second, by host, from the baseline on: "
                + timeline(samples, others, slowAt - BASELINE.toNanos(), restoredAt));
        report.accept(String.format(
                "%slongest time without an acknowledged deposit for the others' accounts while slowed: %d ms (the"
                        + " clients wait for their answers, so a stall shows here more than in the p99)",
                tag, longestGapMillis(samples, others, slowAt, slowAt + SLOW.toNanos())));
        SoftAssertions timing = STRICT ? soft : new SoftAssertions();
        timing.assertThat(during.rate())
                .as(
                        "%sthe others' acknowledged deposits a second while %s is slow, against %.1f before",
                        tag, slow.name(), before.rate())
                .isGreaterThanOrEqualTo(before.rate() / 2);
        if (!STRICT) {
            timing.errorsCollected()
                    .forEach(e -> report.accept(
                            tag + "not asserted (-Dpartition.it.slow-link.timing=false): " + e.getMessage()));
        }
        balances.check(load, soft);
        soft.assertThat(load.violations())
                .as("%sanswers showing less than had been acknowledged", tag)
                .isZero();
        report.accept(String.format("%sphase took %d ms in all", tag, LabProbe.millisSince(phaseStarted)));
        soft.assertAll();
    }

    /** Deposits of one kind started in a window: how many, acknowledged a second, p99 and answers by status. */
    record Window(int count, double rate, long p99Millis, long maxMillis, Map<String, Integer> statuses) {

        @Override
        public String toString() {
            return String.format(
                    "%d sent, %.1f acknowledged/s, p99 %d ms, max %d ms, by status %s",
                    count, rate, p99Millis, maxMillis, statuses);
        }
    }

    /** Per second from {@code from} to {@code to}: acknowledged deposits of a kind, by the host that answered. */
    static String timeline(Queue<DepositLoad.Sample> samples, Predicate<DepositLoad.Sample> kind, long from, long to) {
        int seconds = (int) Math.max(1, (to - from + 999_999_999L) / 1_000_000_000L);
        Map<String, int[]> byHost = new TreeMap<>();
        for (DepositLoad.Sample s : samples) {
            if (s.startNanos() < from || s.startNanos() >= to || !kind.test(s) || s.host() == null) {
                continue;
            }
            int second = (int) ((s.startNanos() - from) / 1_000_000_000L);
            byHost.computeIfAbsent(s.host(), h -> new int[seconds])[second]++;
        }
        StringBuilder b = new StringBuilder();
        byHost.forEach((host, counts) -> b.append(System.lineSeparator())
                .append("    ")
                .append(host)
                .append(": ")
                .append(java.util.Arrays.stream(counts)
                        .mapToObj(Integer::toString)
                        .collect(Collectors.joining(" "))));
        return b.toString();
    }

    /** The longest time between acknowledgements of a kind within a window (its edges count as acknowledgements). */
    static long longestGapMillis(
            Queue<DepositLoad.Sample> samples, Predicate<DepositLoad.Sample> kind, long from, long to) {
        List<Long> acked = new ArrayList<>(List.of(from, to));
        for (DepositLoad.Sample s : samples) {
            if (kind.test(s) && "200".equals(s.status()) && s.endNanos() >= from && s.endNanos() < to) {
                acked.add(s.endNanos());
            }
        }
        acked.sort(null);
        long gap = 0;
        for (int i = 1; i < acked.size(); i++) {
            gap = Math.max(gap, acked.get(i) - acked.get(i - 1));
        }
        return gap / 1_000_000;
    }

    static Window window(Queue<DepositLoad.Sample> samples, Predicate<DepositLoad.Sample> kind, long from, long to) {
        List<Long> millis = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        int acked = 0;
        for (DepositLoad.Sample s : samples) {
            if (s.startNanos() < from || s.startNanos() >= to || !kind.test(s)) {
                continue;
            }
            millis.add((s.endNanos() - s.startNanos()) / 1_000_000);
            statuses.merge(s.status(), 1, Integer::sum);
            if ("200".equals(s.status())) {
                acked++;
            }
        }
        millis.sort(null);
        long p99 = millis.isEmpty() ? 0 : millis.get((int) Math.ceil(millis.size() * 0.99) - 1);
        long max = millis.isEmpty() ? 0 : millis.get(millis.size() - 1);
        return new Window(millis.size(), acked / ((to - from) / 1e9), p99, max, statuses);
    }

    /** Polls the observer's view until interrupted: when the slow member left it, and when it came back. */
    private Thread watchMembership(Node observer, Node slow, AtomicLong removedAt, AtomicLong backAt) {
        Thread t = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        Set<String> members = probe.membersOf(observer);
                        long now = System.nanoTime();
                        if (!members.isEmpty()) {
                            boolean in = members.contains(slow.name());
                            if (!in && removedAt.get() < 0) {
                                removedAt.set(now);
                            } else if (in && removedAt.get() >= 0 && backAt.get() < 0) {
                                backAt.set(now);
                            }
                        }
                        try {
                            TimeUnit.MILLISECONDS.sleep(500);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "slow-link-watch");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Thread dumps of the given nodes at a moment of the slow phase, into their log folders (evidence for a stall). */
    private Thread dumpThreadsLater(List<Node> of, long at, String name) {
        Thread t = new Thread(
                () -> {
                    try {
                        LabProbe.pauseUntil(at);
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (Node n : of) {
                        Path file = n.log().resolveSibling(n.name() + "-slow-link-threads.txt");
                        NetnsLab.Result r = NetnsLab.run(
                                List.of(jstack(), Long.toString(n.process().pid())));
                        try {
                            Files.writeString(file, r.output(), StandardCharsets.UTF_8);
                        } catch (IOException e) {
                            report.accept("[" + name + "/slow-link] cannot write " + file + ": " + e);
                        }
                    }
                },
                "slow-link-dumps");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String jstack() {
        return Path.of(System.getProperty("java.home"), "bin", "jstack").toString();
    }
}
