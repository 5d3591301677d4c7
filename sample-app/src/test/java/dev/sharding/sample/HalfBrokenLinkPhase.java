package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.sample.PartitionProcessIT.Node;
import dev.sharding.sample.SlowLinkPhase.BalanceCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.assertj.core.api.SoftAssertions;

/**
 * Networks that break halfway, on a cluster that is already up, under the clients' deposit load through every node:
 *
 * <ul>
 *   <li><b>a pair cut</b>: the coordinator and one other member cannot reach each other for {@link #FAULT}, while
 *       both still reach the other three (and the database, and the clients);
 *   <li><b>a flapping cut</b>: two members are cut off from the other three and healed again every {@link #FLAP},
 *       for {@link #FAULT}, faster than failure detection and the split-brain decision settle.
 * </ul>
 *
 * After each, the five nodes must be one view again and answer, every account must take deposits again, no
 * acknowledged deposit may be lost, every node must answer the same balance, and no answer may ever show less than
 * had been acknowledged before its request (the sign of two live owners, or of a lost write). Each part reports the
 * acknowledged deposits a second before, during and after the fault, and per second by host, so that what the cluster
 * still served during it can be read off; the rate during the fault is reported, not asserted.
 *
 * <p>Cost: about 30 s for each part on the cluster a scenario already started ({@link #BASELINE} before,
 * {@link #FAULT} of fault, the return to one view and the balance check), no JVM started.
 */
final class HalfBrokenLinkPhase {

    /** Long enough for failure detection to act (a member is suspected within a few seconds), kept short for CI. */
    static final Duration FAULT = Duration.ofSeconds(12);

    static final Duration FLAP = Duration.ofSeconds(2);

    static final Duration BASELINE = Duration.ofSeconds(5);

    private static final int ACCOUNTS = 100;

    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static final Duration REJOIN = Duration.ofSeconds(90);

    /** What a part does to the network until a deadline, and how it restores it. */
    private interface Fault {
        void until(long deadlineNanos) throws Exception;

        void heal() throws Exception;
    }

    private final LabProbe probe = new LabProbe(Duration.ofSeconds(2));

    private final NetnsLab lab;

    private final List<Node> nodes;

    private final Consumer<String> report;

    HalfBrokenLinkPhase(NetnsLab lab, List<Node> nodes, Consumer<String> report) {
        this.lab = lab;
        this.nodes = List.copyOf(nodes);
        this.report = report;
    }

    /** The coordinator and another member unable to reach each other, both reaching the rest. */
    void pairCut(String name, BalanceCheck balances) throws Exception {
        String coordinator = probe.coordinatorOf(nodes.get(0));
        Node a = nodes.stream()
                .filter(n -> n.name().equals(coordinator))
                .findFirst()
                .orElse(nodes.get(0));
        Node b = nodes.stream().filter(n -> n != a).skip(1).findFirst().orElseThrow();
        run(
                name + "/pair-cut",
                a.name() + " (the coordinator) and " + b.name() + " unable to reach each other, both reaching the"
                        + " rest",
                new Fault() {
                    @Override
                    public void until(long deadlineNanos) throws Exception {
                        lab.cut(b.ns(), List.of(a.address()));
                        LabProbe.pauseUntil(deadlineNanos);
                    }

                    @Override
                    public void heal() throws Exception {
                        lab.heal(b.ns());
                    }
                },
                balances);
    }

    /** Two members (not the coordinator) cut off from the other three and healed, every {@link #FLAP}. */
    void flapping(String name, BalanceCheck balances) throws Exception {
        String coordinator = probe.coordinatorOf(nodes.get(0));
        List<Node> others =
                nodes.stream().filter(n -> !n.name().equals(coordinator)).toList();
        List<Node> flapping = others.subList(others.size() - 2, others.size());
        List<String> rest = nodes.stream()
                .filter(n -> !flapping.contains(n))
                .map(Node::address)
                .toList();
        run(
                name + "/flapping",
                flapping.stream().map(Node::name).toList() + " cut off from the other three and healed every "
                        + FLAP.toSeconds() + " s",
                new Fault() {
                    @Override
                    public void until(long deadlineNanos) throws Exception {
                        boolean cut = false;
                        long next = System.nanoTime();
                        while (next < deadlineNanos) {
                            for (Node n : flapping) {
                                if (cut) {
                                    lab.heal(n.ns());
                                } else {
                                    lab.cut(n.ns(), rest);
                                }
                            }
                            cut = !cut;
                            next = Math.min(deadlineNanos, next + FLAP.toNanos());
                            LabProbe.pauseUntil(next);
                        }
                    }

                    @Override
                    public void heal() throws Exception {
                        for (Node n : flapping) {
                            lab.heal(n.ns());
                        }
                    }
                },
                balances);
    }

    private void run(String name, String what, Fault fault, BalanceCheck balances) throws Exception {
        String tag = "[" + name + "] ";
        long phaseStarted = System.nanoTime();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            ids.add(String.format("hb-%s-acct-%03d", name.replace('/', '-'), i));
        }
        DepositLoad load = new DepositLoad(
                nodes.stream()
                        .map(n -> new DepositLoad.Target(n.name(), n.url(""), false))
                        .toList(),
                ids);
        Queue<DepositLoad.Sample> samples = new ConcurrentLinkedQueue<>();
        SoftAssertions soft = new SoftAssertions();
        long faultAt;
        long healedAt;
        long rejoinedMs;
        boolean rejoined;
        boolean recovered;
        load.start();
        try {
            assertThat(LabProbe.poll(SETTLE, () -> load.accountsWithAck() == ACCOUNTS))
                    .as("%san acknowledged deposit into each of %d accounts within %s", tag, ACCOUNTS, SETTLE)
                    .isTrue();
            load.listen(samples::add);
            long baselineAt = System.nanoTime();
            report.accept(String.format(
                    "%sload on %d fresh accounts after %d ms; after %d s of baseline: %s for %d s",
                    tag, ACCOUNTS, LabProbe.millisSince(phaseStarted), BASELINE.toSeconds(), what, FAULT.toSeconds()));
            LabProbe.pauseUntil(baselineAt + BASELINE.toNanos());
            faultAt = System.nanoTime();
            try {
                fault.until(faultAt + FAULT.toNanos());
                report.accept(tag + "at the end of the fault: " + probe.views(nodes));
            } finally {
                fault.heal();
            }
            healedAt = System.nanoTime();
            rejoined = LabProbe.poll(
                    REJOIN,
                    () -> probe.oneView(nodes)
                            && nodes.stream().allMatch(n -> probe.status(n.url("/accounts/" + ids.get(0))) == 200));
            rejoinedMs = LabProbe.millisSince(healedAt);
            load.merged();
            recovered = LabProbe.poll(SETTLE, () -> load.accountsDepositedAfterMerge() == ACCOUNTS);
            report.accept(String.format(
                    "%shealed; %s after %d ms; every account took a deposit again: %s (%d ms after the heal)",
                    tag,
                    rejoined ? "one view of " + nodes.size() + " and every node answering" : "NOT one view",
                    rejoinedMs,
                    recovered,
                    LabProbe.millisSince(healedAt)));
            soft.assertThat(rejoined)
                    .as("%swithin %s of the heal every node sees all and answers: %s", tag, REJOIN, probe.views(nodes))
                    .isTrue();
            soft.assertThat(recovered)
                    .as("%severy account takes deposits again after the heal", tag)
                    .isTrue();
        } finally {
            fault.heal();
            load.stop();
        }
        long stoppedAt = System.nanoTime();
        Predicate<DepositLoad.Sample> deposits = s -> !s.read();
        report.accept(tag + "deposits before: "
                + SlowLinkPhase.window(samples, deposits, faultAt - BASELINE.toNanos(), faultAt));
        report.accept(tag + "deposits during the fault: "
                + SlowLinkPhase.window(samples, deposits, faultAt, faultAt + FAULT.toNanos()));
        report.accept(tag + "deposits after the heal: " + SlowLinkPhase.window(samples, deposits, healedAt, stoppedAt));
        report.accept(tag + "acknowledged deposits a second, by host, from the baseline on: "
                + SlowLinkPhase.timeline(samples, deposits, faultAt - BASELINE.toNanos(), stoppedAt));
        report.accept(String.format(
                "%slongest time without an acknowledged deposit during the fault: %d ms",
                tag, SlowLinkPhase.longestGapMillis(samples, deposits, faultAt, faultAt + FAULT.toNanos())));
        load.report().forEach(l -> report.accept(tag + l));
        balances.check(load, soft);
        soft.assertThat(load.violations())
                .as("%sanswers showing less than had been acknowledged", tag)
                .isZero();
        report.accept(String.format("%spart took %d ms in all", tag, LabProbe.millisSince(phaseStarted)));
        soft.assertAll();
    }
}
