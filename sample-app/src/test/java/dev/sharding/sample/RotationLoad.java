package dev.sharding.sample;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import tools.jackson.databind.JsonNode;

/**
 * Clients behind a load balancer: each request goes to a random node in rotation, and a node is taken out of
 * rotation before it is stopped and put back once it is UP again, as a Kubernetes Service does with a pod's readiness.
 * Three deposits for each read, into random accounts. It keeps the books a zero-failure deploy is judged by: every
 * answer that is not a 200 is a failed request (with its node, status and detail for the report), and per account the
 * sum of the acknowledged deposits, which its balance must equal afterwards when nothing failed.
 */
final class RotationLoad {

    /** How many failed requests the report shows in full. */
    private static final int SHOWN = 10;

    private final List<SampleCluster.Node> nodes;

    private final List<String> ids;

    private final int threads;

    /** What each client waits between two requests. */
    private final Duration pause;

    /** Per node, a client of its own, replaced when the node comes back (no connection kept across a restart). */
    private final AtomicReferenceArray<JsonHttp> clients;

    private final AtomicIntegerArray inRotation;

    /** Per node, the requests sent to it that have not ended. */
    private final AtomicIntegerArray inFlight;

    private final AtomicLongArray acked;

    /** Per account, the deposits that failed: their outcome is unknown to the client. */
    private final AtomicLongArray unknown;

    private final AtomicLong ok = new AtomicLong();

    private final LongAdder failedCount = new LongAdder();

    private final Map<String, LongAdder> failedByKind = new ConcurrentSkipListMap<>();

    private final Queue<String> failedShown = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean running = new AtomicBoolean();

    private final List<Thread> clientThreads = new ArrayList<>();

    /**
     * The load, not started.
     *
     * @param nodes the nodes, all in rotation at first
     * @param ids the accounts
     * @param threads how many clients, each with one request at a time
     * @param pause what each client waits between two requests
     */
    RotationLoad(List<SampleCluster.Node> nodes, List<String> ids, int threads, Duration pause) {
        this.nodes = List.copyOf(nodes);
        this.ids = List.copyOf(ids);
        this.threads = threads;
        this.pause = pause;
        clients = new AtomicReferenceArray<>(nodes.size());
        inRotation = new AtomicIntegerArray(nodes.size());
        inFlight = new AtomicIntegerArray(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            clients.set(i, newClient());
            inRotation.set(i, 1);
        }
        acked = new AtomicLongArray(ids.size());
        unknown = new AtomicLongArray(ids.size());
    }

    private static JsonHttp newClient() {
        return new JsonHttp(Duration.ofSeconds(15));
    }

    void start() {
        running.set(true);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(this::loop, "rotation-client-" + t);
            thread.setDaemon(true);
            clientThreads.add(thread);
            thread.start();
        }
    }

    /** Stops the clients and waits for the requests in flight. */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : clientThreads) {
            t.join(30_000);
        }
    }

    /** Takes a node out of rotation and waits until the requests sent to it have ended. */
    void takeOut(SampleCluster.Node node) {
        int i = nodes.indexOf(node);
        inRotation.set(i, 0);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (inFlight.get(i) > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Requests to " + node.name + " still in flight 30 s after it left rotation");
            }
            SampleCluster.pause(Duration.ofMillis(10));
        }
    }

    /** Puts a node back in rotation, with a new client. */
    void putBack(SampleCluster.Node node) {
        int i = nodes.indexOf(node);
        clients.set(i, newClient());
        inRotation.set(i, 1);
    }

    /** Requests answered 200 so far. */
    long ok() {
        return ok.get();
    }

    long failed() {
        return failedCount.sum();
    }

    /** Waits until at least {@code more} further requests have succeeded, for at most a minute. */
    void awaitSucceeded(long more) {
        long target = ok.get() + more;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ok.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Only " + ok.get() + " requests succeeded, " + failed() + " failed: " + report());
            }
            SampleCluster.pause(Duration.ofMillis(20));
        }
    }

    /** The sum of the acknowledged deposits into an account. */
    long acknowledged(int account) {
        return acked.get(account);
    }

    /** The sum of the deposits into an account that failed: each may have been applied or not. */
    long unknown(int account) {
        return unknown.get(account);
    }

    /** The failed requests, by kind, and the first few in full. */
    List<String> report() {
        List<String> lines = new ArrayList<>();
        lines.add(ok.get() + " requests answered 200, " + failed() + " failed");
        failedByKind.forEach((kind, n) -> lines.add("  " + kind + ": " + n.sum()));
        failedShown.forEach(f -> lines.add("  " + f));
        return lines;
    }

    private void loop() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            int t = random.nextInt(nodes.size());
            if (inRotation.get(t) == 0) {
                continue;
            }
            inFlight.incrementAndGet(t);
            try {
                if (inRotation.get(t) == 0) {
                    continue; // taken out meanwhile: the balancer would not have sent it
                }
                one(t, random.nextInt(ids.size()), random.nextInt(4) == 0);
            } finally {
                inFlight.decrementAndGet(t);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(pause.toNanos());
        }
    }

    private void one(int t, int a, boolean read) {
        SampleCluster.Node node = nodes.get(t);
        String id = ids.get(a);
        long amount = 1 + ThreadLocalRandom.current().nextInt(100);
        long sent = System.nanoTime();
        String status;
        String detail;
        JsonNode body = null;
        try {
            JsonHttp.Answer answer = read
                    ? clients.get(t).get(node.url("/accounts/" + id))
                    : clients.get(t).postJson(node.url("/accounts/" + id + "/deposit"), "{\"amount\": " + amount + "}");
            status = Integer.toString(answer.status());
            body = answer.json();
            detail = body == null ? answer.text() : body.path("detail").asString();
        } catch (UncheckedIOException e) {
            status = "no answer";
            detail = String.valueOf(e.getCause());
        }
        if ("200".equals(status)) {
            ok.incrementAndGet();
            if (!read) {
                acked.addAndGet(a, amount);
            }
            return;
        }
        failedCount.increment();
        if (!read) {
            unknown.addAndGet(a, amount);
        }
        String kind = (read ? "read " : "deposit ") + status;
        failedByKind.computeIfAbsent(kind, k -> new LongAdder()).increment();
        if (failedShown.size() < SHOWN) {
            failedShown.add(String.format(
                    "%s of %s through %s after %d ms: %s",
                    kind, id, node.name, (System.nanoTime() - sent) / 1_000_000, detail));
        }
    }
}
