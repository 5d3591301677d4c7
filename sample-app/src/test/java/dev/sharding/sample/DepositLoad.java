package dev.sharding.sample;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Clients depositing into accounts through every node round-robin (and reading them), keeping the books a test needs
 * to judge a cluster under partitions: per account the sum of acknowledged deposits (200) and the sum of deposits
 * whose outcome is unknown (timeouts, connection errors, any other status), the count of each answer per phase and
 * side, every stale answer (a 200 showing less than what had been acknowledged before the request started), which
 * nodes hosted each account during the cut, and when the majority first served the minority's accounts.
 */
final class DepositLoad {

    /** Where the run is, as the test moves it on; a request counts in the phase it started in. */
    enum Phase {
        BEFORE("before the cut"),
        CUT_EARLY("cut, first " + GRACE.toSeconds() + " s"),
        CUT_LATE("cut, after " + GRACE.toSeconds() + " s"),
        HEALING("healed, not merged"),
        MERGED("merged");

        final String label;

        Phase(String label) {
            this.label = label;
        }
    }

    /** How long after the cut failure detection and a split-brain decision may take, before strict expectations. */
    static final Duration GRACE = Duration.ofSeconds(15);

    /** A node the clients send to, and whether it is on the side that is cut off or frozen. */
    record Target(String name, String baseUrl, boolean minority) {}

    /**
     * One request as it ended, for a test that judges rates and latencies itself.
     *
     * @param startNanos when it was sent ({@link System#nanoTime()})
     * @param endNanos when its answer or failure came
     * @param target the node asked
     * @param home the node that had last answered 200 for the account when it was sent, or null
     * @param host the node the answer says hosts the account (200 only), or null
     */
    record Sample(
            long startNanos,
            long endNanos,
            String target,
            int account,
            boolean read,
            String status,
            @Nullable String home,
            @Nullable String host) {}

    /** Clients kept for the traffic of a diverted node, so that waiting on it holds up none of the others. */
    private static final int DIVERTED_THREADS = 3;

    private static final int THREADS = 8;

    private static final Duration SKIP_AFTER_NO_ANSWER = Duration.ofSeconds(2);

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(8));

    private final List<Target> targets;

    private final Set<String> minorityNames;

    private final List<String> ids;

    private final AtomicLongArray acked;

    private final AtomicLongArray ackedCount;

    private final AtomicLongArray unknown;

    /** Deposits per account answered 504: stored or not, nobody knows, so the account must read its state again. */
    private final AtomicLongArray outcomeUnknown;

    /** Reads that did not answer 200: phase ordinal, account, status. */
    private final java.util.Queue<String> failedReads = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private final AtomicReferenceArray<String> lastHome;

    private final AtomicReferenceArray<String> homeAtCut;

    private final List<Set<String>> hostsDuringCut = new ArrayList<>();

    private final AtomicLongArray takenOverAfterMillis;

    private final AtomicLongArray depositedAfterMerge;

    private final AtomicLongArray skipUntil;

    private final Map<String, LongAdder> answers = new ConcurrentSkipListMap<>();

    /** Per key of {@link #answers}: the milliseconds the answers took, in all, and the longest. */
    private final Map<String, LongAdder> answerMillis = new ConcurrentHashMap<>();

    private final Map<String, AtomicLong> longestMillis = new ConcurrentHashMap<>();

    private final Map<Phase, LongAdder> servedByMinority = new ConcurrentHashMap<>();

    private final Map<String, String> firstRefusal = new ConcurrentSkipListMap<>();

    private final Map<Phase, LongAdder> violationCounts = new ConcurrentHashMap<>();

    private final Queue<String> violationExamples = new ConcurrentLinkedQueue<>();

    private final AtomicLong counter = new AtomicLong();

    private final AtomicBoolean running = new AtomicBoolean();

    private final List<Thread> threads = new ArrayList<>();

    private volatile Phase phase = Phase.BEFORE;

    private volatile long cutAt;

    private volatile @Nullable Consumer<Sample> listener;

    private volatile @Nullable String diverted;

    DepositLoad(List<Target> targets, List<String> ids) {
        this.targets = List.copyOf(targets);
        this.minorityNames =
                targets.stream().filter(Target::minority).map(Target::name).collect(Collectors.toSet());
        this.ids = List.copyOf(ids);
        int n = ids.size();
        acked = new AtomicLongArray(n);
        ackedCount = new AtomicLongArray(n);
        unknown = new AtomicLongArray(n);
        outcomeUnknown = new AtomicLongArray(n);
        lastHome = new AtomicReferenceArray<>(n);
        homeAtCut = new AtomicReferenceArray<>(n);
        takenOverAfterMillis = new AtomicLongArray(n);
        depositedAfterMerge = new AtomicLongArray(n);
        for (int i = 0; i < n; i++) {
            hostsDuringCut.add(ConcurrentHashMap.newKeySet());
            takenOverAfterMillis.set(i, -1);
        }
        skipUntil = new AtomicLongArray(targets.size());
    }

    void start() {
        running.set(true);
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(this::loop, "deposit-client-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        for (int t = 0; t < DIVERTED_THREADS; t++) {
            Thread thread = new Thread(this::divertedLoop, "deposit-client-diverted-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Hands every request, as it ends, to a listener (null: none). */
    void listen(@Nullable Consumer<Sample> l) {
        listener = l;
    }

    /**
     * Moves the traffic of one node to clients of its own: requests sent to it, and those for accounts it last
     * hosted, go from then on through {@value #DIVERTED_THREADS} separate clients, so that while it is slow the
     * others' accounts are measured on clients that never wait on it (null: back to everyone on the shared clients).
     */
    void divert(@Nullable String node) {
        diverted = node;
    }

    /** Stops the clients and waits for the requests in flight. */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    /** Marks the cut (or freeze): remembers where each account lived just before it. */
    void cut() {
        for (int i = 0; i < ids.size(); i++) {
            homeAtCut.set(i, lastHome.get(i));
        }
        cutAt = System.nanoTime();
        phase = Phase.CUT_EARLY;
    }

    void healed() {
        phase = Phase.HEALING;
    }

    void merged() {
        phase = Phase.MERGED;
    }

    private Phase phaseNow() {
        Phase p = phase;
        if (p == Phase.CUT_EARLY && System.nanoTime() - cutAt >= GRACE.toNanos()) {
            return Phase.CUT_LATE;
        }
        return p;
    }

    private void loop() {
        while (running.get()) {
            long k = counter.getAndIncrement();
            int a = (int) (k % ids.size());
            int t = pick((int) ((k + k / ids.size()) % targets.size()));
            String d = diverted;
            if (d != null && (d.equals(targets.get(t).name()) || d.equals(lastHome.get(a)))) {
                continue;
            }
            one(a, targets.get(t), t, ThreadLocalRandom.current().nextInt(4) == 0);
        }
    }

    /** The diverted node's traffic: a random target, and a random account it hosts unless sent to it. */
    private void divertedLoop() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            String d = diverted;
            if (d == null) {
                SampleCluster.pause(Duration.ofMillis(50));
                continue;
            }
            int t = random.nextInt(targets.size());
            int a = random.nextInt(ids.size());
            if (!d.equals(targets.get(t).name())) {
                int start = a;
                while (!d.equals(lastHome.get(a))) {
                    a = (a + 1) % ids.size();
                    if (a == start) {
                        break;
                    }
                }
                if (!d.equals(lastHome.get(a))) {
                    SampleCluster.pause(Duration.ofMillis(50));
                    continue;
                }
            }
            one(a, targets.get(t), t, random.nextInt(4) == 0);
        }
    }

    /** The target, or the next one that answered lately when it did not. */
    private int pick(int t) {
        long now = System.nanoTime();
        for (int i = 0; i < targets.size(); i++) {
            int c = (t + i) % targets.size();
            if (skipUntil.get(c) <= now) {
                return c;
            }
        }
        return t;
    }

    private void one(int a, Target target, int t, boolean read) {
        String id = ids.get(a);
        long amount = 1 + ThreadLocalRandom.current().nextInt(100);
        Phase started = phaseNow();
        long ackedBefore = acked.get(a);
        @Nullable String home = lastHome.get(a);
        long sentAt = System.nanoTime();
        String status;
        @Nullable JsonNode body = null;
        long sent = System.nanoTime();
        try {
            JsonHttp.Answer answer = read
                    ? http.get(target.baseUrl() + "/accounts/" + id)
                    : http.postJson(target.baseUrl() + "/accounts/" + id + "/deposit", "{\"amount\": " + amount + "}");
            status = Integer.toString(answer.status());
            body = answer.json();
        } catch (UncheckedIOException e) {
            status = failure(e);
            skipUntil.set(t, System.nanoTime() + SKIP_AFTER_NO_ANSWER.toNanos());
        }
        long tookMillis = (System.nanoTime() - sent) / 1_000_000;
        String key = key(started, target.minority(), read, status);
        answers.computeIfAbsent(key, x -> new LongAdder()).increment();
        answerMillis.computeIfAbsent(key, x -> new LongAdder()).add(tookMillis);
        longestMillis.computeIfAbsent(key, x -> new AtomicLong()).accumulateAndGet(tookMillis, Math::max);
        if (body != null && !"200".equals(status)) {
            // the first refusal of each phase, operation and status, with the node asked and how long it took
            firstRefusal.putIfAbsent(
                    started.ordinal() + "|" + started.label + ", " + (read ? "read" : "deposit") + " " + status,
                    "through " + target.name() + " in " + tookMillis + " ms: "
                            + body.path("detail").asString());
        }
        boolean ok = "200".equals(status);
        Consumer<Sample> l = listener;
        if (l != null) {
            l.accept(new Sample(
                    sentAt,
                    System.nanoTime(),
                    target.name(),
                    a,
                    read,
                    status,
                    home,
                    ok && body != null ? body.path("node").asString() : null));
        }
        if (!read) {
            if (ok) {
                acked.addAndGet(a, amount);
                ackedCount.incrementAndGet(a);
            } else {
                unknown.addAndGet(a, amount);
            }
            if ("504".equals(status)) {
                outcomeUnknown.incrementAndGet(a);
            }
        } else if (!ok) {
            failedReads.add(started.ordinal() + "|" + a + "|" + status);
        }
        if (!ok || body == null) {
            return;
        }
        long balance = body.path("balance").asLong();
        String host = body.path("node").asString();
        long least = ackedBefore + (read ? 0 : amount);
        if (balance < least) {
            violationCounts.computeIfAbsent(started, x -> new LongAdder()).increment();
            if (violationExamples.size() < 20) {
                violationExamples.add(String.format(
                        "%s: %s %s through %s (hosted on %s) answered balance %d, but %d"
                                + " had been acknowledged before the request%s",
                        started.label,
                        read ? "read of" : "deposit into",
                        id,
                        target.name(),
                        host,
                        balance,
                        ackedBefore,
                        read ? "" : " (plus this deposit of " + amount + ")"));
            }
        }
        lastHome.set(a, host);
        if (minorityNames.contains(host)) {
            servedByMinority.computeIfAbsent(started, x -> new LongAdder()).increment();
        }
        Phase now = phaseNow();
        if (started == Phase.CUT_EARLY || started == Phase.CUT_LATE) {
            hostsDuringCut.get(a).add(host);
        }
        if (!read
                && (now == Phase.CUT_EARLY || now == Phase.CUT_LATE)
                && !target.minority()
                && minorityNames.contains(homeAtCut.get(a))
                && !minorityNames.contains(host)) {
            takenOverAfterMillis.compareAndSet(a, -1, (System.nanoTime() - cutAt) / 1_000_000);
        }
        if (!read && started == Phase.MERGED) {
            depositedAfterMerge.incrementAndGet(a);
        }
    }

    private static String failure(UncheckedIOException e) {
        Throwable c = e.getCause();
        if (c instanceof HttpConnectTimeoutException) {
            return "connect-timeout";
        }
        if (c instanceof HttpTimeoutException) {
            return "timeout";
        }
        if (c instanceof ConnectException) {
            return "refused";
        }
        return "io-error";
    }

    private static String key(Phase p, boolean minority, boolean read, String status) {
        return p.ordinal() + "|" + p.label + "|" + (minority ? "minority" : "majority") + "|"
                + (read ? "read" : "deposit") + "|" + status;
    }

    // ---- the books ------------------------------------------------------------------------------------------------

    List<String> ids() {
        return ids;
    }

    long acked(int a) {
        return acked.get(a);
    }

    long ackedCount(int a) {
        return ackedCount.get(a);
    }

    long unknown(int a) {
        return unknown.get(a);
    }

    int accountsWithAck() {
        return (int) IntStream.range(0, ids.size())
                .filter(i -> ackedCount.get(i) > 0)
                .count();
    }

    int accountsDepositedAfterMerge() {
        return (int) IntStream.range(0, ids.size())
                .filter(i -> depositedAfterMerge.get(i) > 0)
                .count();
    }

    /** How many accounts last answered 200 from the given node. */
    long hostedBy(String node) {
        return IntStream.range(0, ids.size())
                .filter(i -> node.equals(lastHome.get(i)))
                .count();
    }

    long requests() {
        return counter.get();
    }

    /** How many answers of a status the given side gave in a phase (reads and deposits). */
    long answers(Phase p, boolean minority, String status) {
        String prefix = p.ordinal() + "|" + p.label + "|" + (minority ? "minority" : "majority") + "|";
        return answers.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix) && e.getKey().endsWith("|" + status))
                .mapToLong(e -> e.getValue().sum())
                .sum();
    }

    /** Every answer the given side gave in a phase, by status. */
    Map<String, Long> answers(Phase p, boolean minority) {
        String prefix = p.ordinal() + "|" + p.label + "|" + (minority ? "minority" : "majority") + "|";
        Map<String, Long> byStatus = new ConcurrentSkipListMap<>();
        answers.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                byStatus.merge(k.substring(k.lastIndexOf('|') + 1), v.sum(), Long::sum);
            }
        });
        return byStatus;
    }

    /** The answers to reads (or deposits) started in a phase, through either side, by status. */
    /**
     * The reads started in a phase that did not answer 200, of accounts none of whose deposits had an unknown outcome
     * (504): an account whose last write may or may not have been stored reads its state from the database before it
     * answers again, so while the database is cut off it cannot answer from memory.
     *
     * @return "account status" for each
     */
    List<String> failedReadsOfSettledAccounts(Phase p) {
        List<String> failed = new ArrayList<>();
        for (String r : failedReads) {
            String[] f = r.split("\\|");
            int a = Integer.parseInt(f[1]);
            if (f[0].equals(Integer.toString(p.ordinal())) && outcomeUnknown.get(a) == 0) {
                failed.add(ids.get(a) + " " + f[2]);
            }
        }
        return failed;
    }

    Map<String, Long> answersOf(Phase p, boolean read) {
        Map<String, Long> byStatus = new ConcurrentSkipListMap<>();
        answers.forEach((k, v) -> {
            String[] f = k.split("\\|");
            if (f[0].equals(Integer.toString(p.ordinal())) && f[3].equals(read ? "read" : "deposit")) {
                byStatus.merge(f[4], v.sum(), Long::sum);
            }
        });
        return byStatus;
    }

    /**
     * How long the reads (or deposits) started in a phase and answered with a status took, through either side: the
     * mean and the longest, in milliseconds ({@code {0, 0}} when there were none).
     */
    long[] millisOf(Phase p, boolean read, String status) {
        long count = 0;
        long sum = 0;
        long longest = 0;
        for (Map.Entry<String, LongAdder> e : answers.entrySet()) {
            String[] f = e.getKey().split("\\|");
            if (f[0].equals(Integer.toString(p.ordinal()))
                    && f[3].equals(read ? "read" : "deposit")
                    && f[4].equals(status)) {
                count += e.getValue().sum();
                sum += answerMillis.get(e.getKey()).sum();
                longest = Math.max(longest, longestMillis.get(e.getKey()).get());
            }
        }
        return new long[] {count == 0 ? 0 : sum / count, longest};
    }

    /** How many 200 answers of requests started in a phase came from an entity hosted on the minority. */
    long servedByMinority(Phase p) {
        LongAdder n = servedByMinority.get(p);
        return n == null ? 0 : n.sum();
    }

    long violations() {
        return violationCounts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** The report of the run's answers, stale answers, hosts during the cut and takeover times, as printable lines. */
    List<String> report() {
        List<String> lines = new ArrayList<>();
        lines.add("Requests: " + requests() + " (" + THREADS + " clients, a quarter of them reads)");
        lines.add("Answers by phase, side (of the node asked), operation and status:");
        answers.forEach((k, v) -> {
            String[] f = k.split("\\|");
            long n = v.sum();
            lines.add(String.format(
                    "  %-26s %-8s %-7s %-15s %7d  (mean %d ms, longest %d ms)",
                    f[1],
                    f[2],
                    f[3],
                    f[4],
                    n,
                    n == 0 ? 0 : answerMillis.get(k).sum() / n,
                    longestMillis.get(k).get()));
        });
        firstRefusal.forEach(
                (key, detail) -> lines.add("  first " + key.substring(key.indexOf('|') + 1) + " said " + detail));
        lines.add("Stale answers (200 with less than acknowledged before the request): " + violations() + " "
                + violationCounts.entrySet().stream()
                        .map(e -> e.getKey().label + "=" + e.getValue().sum())
                        .toList());
        violationExamples.forEach(v -> lines.add("  " + v));
        int minorityHomed = 0;
        int bothSides = 0;
        int takenOver = 0;
        long first = Long.MAX_VALUE;
        long last = -1;
        for (int i = 0; i < ids.size(); i++) {
            Set<String> hosts = hostsDuringCut.get(i);
            if (hosts.stream().anyMatch(minorityNames::contains)
                    && hosts.stream().anyMatch(h -> !minorityNames.contains(h))) {
                bothSides++;
            }
            if (minorityNames.contains(homeAtCut.get(i))) {
                minorityHomed++;
                long ms = takenOverAfterMillis.get(i);
                if (ms >= 0) {
                    takenOver++;
                    first = Math.min(first, ms);
                    last = Math.max(last, ms);
                }
            }
        }
        lines.add("200 answers from entities hosted on the minority, by phase the request started in: "
                + servedByMinority.entrySet().stream()
                        .map(e -> e.getKey().label + "=" + e.getValue().sum())
                        .toList());
        lines.add("Accounts answered 200 by hosts on both sides during the cut (two live copies): " + bothSides);
        lines.add("Accounts hosted on the minority at the cut: " + minorityHomed + "; a deposit through the majority,"
                + " hosted on the majority, acknowledged during the cut for " + takenOver
                + (takenOver == 0 ? "" : ", the first " + first + " ms and the last " + last + " ms after the cut"));
        return lines;
    }

    /** Milliseconds from the cut to the first majority-hosted deposit of a minority account, or -1. */
    long firstTakeoverMillis() {
        long first = -1;
        for (int i = 0; i < ids.size(); i++) {
            long ms = takenOverAfterMillis.get(i);
            if (ms >= 0 && (first < 0 || ms < first)) {
                first = ms;
            }
        }
        return first;
    }
}
