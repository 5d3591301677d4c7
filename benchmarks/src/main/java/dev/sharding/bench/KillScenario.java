package dev.sharding.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * W10, sample-kill: what a user does by hand, by machine. N sample-app nodes as processes (its runnable jar, as H1) on
 * the sample's default embedded H2 file, which n1 (started first, alone) serves to the others; once all N see N
 * members, one deposit to each account ({@link AccountPolls#deposit}) spread over the nodes; once the cluster is idle,
 * {@code kill -9} of K nodes at once: the coordinator, n1 and others spread over the rest ({@link #victims}); from the
 * kill, every account is read through the survivors until it answers its balance ({@link AccountPolls#poll}), and
 * the survivors' logs give the {@link KillTimeline}.
 */
final class KillScenario {

    static final List<String> FIGURES =
            List.of("all_answered_s", "p50_answered_s", "p99_answered_s", "lost", "killed", "coordinator_killed");

    static String notes(Options o) {
        return "N nodes of the sample app itself (sample-app jar, its own application.properties:"
                + " actuator, dashboard, history projection; every sharding setting at its default), one cluster on"
                + " loopback (JGroups TCP, unique cluster name, free ports), on the sample's default store, the embedded H2"
                + " file in the run's folder, which n1 (started first, alone: the oldest, so normally the coordinator)"
                + " serves to the others; once all N list N members, one deposit POST /accounts/a-i/deposit of"
                + " (i % 1000 + 1) with an Idempotency-Key to each account, through node i % N, "
                + AccountPolls.DEPOSITORS
                + " at a time; then until the nodes' shards, entities and handoffs (/actuator/sharding) have not changed"
                + " for 3 s; then SIGKILL of K nodes at once: the coordinator (from /actuator/sharding), n1 and others"
                + " spread over the rest; from the kill, GET /accounts/a-i of every account through the survivors ("
                + o.readers() + " at a time, JDK HttpClient, timeout 2 s, another survivor and a 100 ms pause"
                + " after a failure or a wrong balance) until it answers 200 with its balance; *_answered_s = seconds"
                + " from the kill to each account's first right answer (max, p50, p99); lost = accounts without one"
                + " within 300 s; timeline = per step of the failover, the seconds from the kill to the first log line"
                + " that marks it on each survivor (earliest, latest, how many logged it; null: none did)";
    }

    private static final Duration IDLE_QUIET = Duration.ofSeconds(3);

    /**
     * What a W10 run does.
     *
     * @param nodes sample nodes started
     * @param kill nodes killed at once
     * @param accounts accounts deposited to and read back
     * @param heap heap of each node
     * @param readers the reads in flight at once after the kill
     * @param readBefore whether every account is read once before the kill too, to measure the reads' own pace
     * @param warmSeconds for how long every account is read, pass after pass, before all that: 0 for not at all, else
     *     JVMs that have compiled the read path, as a cluster that has served for a while has
     */
    record Options(int nodes, int kill, int accounts, String heap, int readers, boolean readBefore, int warmSeconds) {

        static Options defaults() {
            return new Options(12, 3, 1000, "256m", 64, false, 0);
        }

        /** {@return a problem with the options, or null} */
        @Nullable
        String problem() {
            if (kill < 1
                    || 2 * kill >= nodes
                    || accounts < 1
                    || readers < 1
                    || warmSeconds < 0
                    || !heap.matches("[0-9]+[kmgKMG]")) {
                return "W10 needs at least 1 node killed, fewer than half the nodes killed (the survivors must be a"
                        + " majority), 1 account, 1 reader, a warm-up of 0 s or more and a heap such as 256m";
            }
            return null;
        }
    }

    private KillScenario() {}

    static ObjectNode run(Launcher launcher, String tag, Options o, Path jar) throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "No jar " + jar + ": build the sample app (./mvnw -pl sample-app -am package"
                            + " -DskipTests) or name it with --sample-jar");
        }
        int n = o.nodes();
        List<Integer> ports = Ports.pick(2 * n);
        List<Integer> jgroups = ports.subList(0, n);
        List<Integer> http = ports.subList(n, 2 * n);
        String cluster = Launcher.newClusterName();
        String store = "--sharding.store.embedded-path=" + launcher.embeddedStorePath(tag);
        Map<String, NodeProcess> nodes = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            String name = "n" + (i + 1);
            List<String> args = SampleNodes.args(cluster, name, http.get(i), jgroups.get(i), jgroups);
            args.add(store);
            nodes.put(name, launcher.startJar(tag, name, o.heap(), jar, args));
            if (i == 0) {
                SampleNodes.awaitReady(nodes.get(name), http.get(0), 1, Duration.ofSeconds(180));
            }
        }
        List<NodeProcess> all = new ArrayList<>(nodes.values());
        for (int i = 0; i < n; i++) {
            SampleNodes.awaitReady(all.get(i), http.get(i), n, Duration.ofSeconds(300));
        }
        double startS = Workloads.seconds(System.nanoTime() - t0);
        System.err.println("[bench] W10: " + n + " nodes up in " + Math.round(startS) + " s; depositing");

        AccountPolls polls = new AccountPolls(o.readers());
        long t1 = System.nanoTime();
        long[] expected = polls.deposit(http, o.accounts(), tag, Duration.ofSeconds(300));
        double depositS = Workloads.seconds(System.nanoTime() - t1);
        long t2 = System.nanoTime();
        boolean idle = awaitIdle(http.get(1), Duration.ofSeconds(120));
        double idleS = Workloads.seconds(System.nanoTime() - t2);
        String coordinator = SampleNodes.get(http.get(1), "/actuator/sharding")
                .path("coordinator")
                .path("name")
                .asString("");
        List<String> victims = victims(new ArrayList<>(nodes.keySet()), coordinator, o.kill());
        List<Integer> survivorPorts = new ArrayList<>();
        Map<String, Path> survivorLogs = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            if (!victims.contains(all.get(i).name())) {
                survivorPorts.add(http.get(i));
                survivorLogs.put(all.get(i).name(), all.get(i).log());
            }
        }
        int warmPasses = 0;
        for (long tw = System.nanoTime(); System.nanoTime() - tw < o.warmSeconds() * 1_000_000_000L; warmPasses++) {
            polls.poll(survivorPorts, expected, Duration.ofSeconds(120));
        }
        Double readBeforeS = null;
        int[] readBeforePerS = new int[0];
        ObjectNode readBeforeCpu = Workloads.JSON.createObjectNode();
        if (o.readBefore()) {
            CpuSplit cpu = CpuSplit.ofNodes(all, Map.of());
            long tr = System.nanoTime();
            cpu.snapshot();
            AccountPolls.Outcome before = polls.poll(survivorPorts, expected, Duration.ofSeconds(120));
            cpu.snapshot();
            readBeforeS = before.lost() > 0 ? null : Workloads.round3(Workloads.seconds(System.nanoTime() - tr));
            readBeforePerS = perSecond(before.sortedSeconds(tr));
            cpu.putPhase(0, before.requests(), readBeforeCpu);
        }
        System.err.println("[bench] W10: coordinator " + coordinator + "; killing " + victims);

        List<ProcessHandle> handles =
                victims.stream().map(v -> nodes.get(v).handle()).toList();
        Instant killedAt = Instant.now();
        long kill = System.nanoTime();
        handles.forEach(ProcessHandle::destroyForcibly);
        // the survivors only: the killed nodes' CPU after the kill counts in no process once they are gone
        CpuSplit afterKillCpu = CpuSplit.ofNodes(
                all.stream().filter(p -> !victims.contains(p.name())).toList(), Map.of());
        afterKillCpu.snapshot();
        AccountPolls.Outcome out = polls.poll(survivorPorts, expected, Duration.ofSeconds(300));
        afterKillCpu.snapshot();
        Instant readsEnded = Instant.now();
        for (ProcessHandle h : handles) {
            h.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }

        double[] answered = out.sortedSeconds(kill);
        ObjectNode r = Workloads.JSON.createObjectNode();
        r.put("all_answered_s", out.lost() > 0 ? null : AccountPolls.percentile(answered, 100));
        if (o.readBefore()) {
            r.put("read_before_kill_s", readBeforeS);
            r.set("read_before_per_s", Workloads.JSON.valueToTree(readBeforePerS));
            r.set("read_before_cpu", readBeforeCpu);
        }
        if (o.warmSeconds() > 0) {
            r.put("warm_s", o.warmSeconds());
            r.put("warm_passes", warmPasses);
        }
        r.put("p50_answered_s", AccountPolls.percentile(answered, 50));
        r.put("p99_answered_s", AccountPolls.percentile(answered, 99));
        r.set("answered_per_s", Workloads.JSON.valueToTree(perSecond(answered)));
        r.put("lost", out.lost());
        r.set("killed", Workloads.JSON.valueToTree(victims));
        r.put("coordinator_killed", victims.contains(coordinator));
        r.put("n", o.accounts());
        r.put("coordinator", coordinator);
        r.put("store_server_killed", victims.contains("n1"));
        r.put("survivors", survivorPorts.size());
        r.put("readers", o.readers());
        r.set("timeline", KillTimeline.of(killedAt, readsEnded, survivorLogs));
        r.put("start_s", Workloads.round3(startS));
        r.put("deposit_s", Workloads.round3(depositS));
        r.put("idle_wait_s", Workloads.round3(idleS));
        r.put("idle", idle);
        long lastAsked = java.util.Arrays.stream(out.firstAskNanos()).max().orElse(kill);
        r.put("last_account_first_read_s", Workloads.round3(Workloads.seconds(lastAsked - kill)));
        double[] fromFirstRead = out.sortedSecondsFromFirstRead();
        r.put("p50_from_first_read_s", AccountPolls.percentile(fromFirstRead, 50));
        r.put("max_from_first_read_s", AccountPolls.percentile(fromFirstRead, 100));
        r.put("reads", out.requests());
        r.put("read_timeouts", out.timeouts());
        r.put("read_not_200", out.otherStatus());
        r.put("read_io_errors", out.ioErrors());
        r.put("wrong_balance_reads", out.wrongAnswers());
        ObjectNode readsCpu = r.putObject("after_kill_cpu");
        afterKillCpu.putPhase(0, out.requests(), readsCpu);
        if (out.lost() > 0) {
            r.put("error", out.lost() + " of " + o.accounts() + " accounts never answered their balance");
        }
        return r;
    }

    /** {@return how many of the sorted times fall in each whole second from 0, the last bucket the last time's} */
    static int[] perSecond(double[] sortedSeconds) {
        if (sortedSeconds.length == 0) {
            return new int[0];
        }
        int[] counts = new int[(int) Math.floor(sortedSeconds[sortedSeconds.length - 1]) + 1];
        for (double s : sortedSeconds) {
            counts[(int) Math.max(0, Math.floor(s))]++;
        }
        return counts;
    }

    /**
     * The nodes to kill: the coordinator, n1 (which serves the H2 file; the first name), then the others spread evenly
     * over the rest, in the order of {@code names}.
     *
     * @param names every node, n1 first
     * @param coordinator the coordinator's name
     * @param k how many to kill
     * @return their names
     */
    static List<String> victims(List<String> names, String coordinator, int k) {
        List<String> victims = new ArrayList<>();
        if (names.contains(coordinator)) {
            victims.add(coordinator);
        }
        if (victims.size() < k && !victims.contains(names.get(0))) {
            victims.add(names.get(0));
        }
        List<String> rest = names.stream().filter(x -> !victims.contains(x)).toList();
        int more = k - victims.size();
        for (int j = 0; j < more; j++) {
            victims.add(rest.get((2 * j + 1) * rest.size() / (2 * more)));
        }
        return victims;
    }

    /**
     * Waits until no shard is being handed off and every member's shards and live entities have not changed for
     * {@link #IDLE_QUIET}, as one node's {@code /actuator/sharding} tells.
     *
     * @return whether that happened within the timeout
     */
    private static boolean awaitIdle(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            String now;
            try {
                JsonNode s = SampleNodes.get(port, "/actuator/sharding");
                StringBuilder b = new StringBuilder(s.path("handoffs").toString());
                for (JsonNode regions : s.path("entityTypes")) {
                    for (JsonNode region : regions) {
                        b.append(region.path("member").asString())
                                .append(':')
                                .append(region.path("shardCount").asInt())
                                .append('/')
                                .append(region.path("entityCount").asInt())
                                .append(' ');
                    }
                }
                now = s.path("handoffs").isEmpty() ? b.toString() : "handing off " + System.nanoTime();
            } catch (java.io.IOException | RuntimeException e) {
                now = e.toString() + System.nanoTime();
            }
            if (!now.equals(last)) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= IDLE_QUIET.toNanos()) {
                return true;
            }
            Thread.sleep(1_000);
        }
        return false;
    }
}
