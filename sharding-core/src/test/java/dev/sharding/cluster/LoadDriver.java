package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.test.Journal;
import dev.sharding.test.SequenceChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Senders that keep sending numbered messages (one ask in four) to a set of {@link Journal} entities, and the checks
 * that every message arrived, in order, with no ask failed.
 */
final class LoadDriver implements AutoCloseable {

    private final List<String> ids;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final AtomicBoolean sending = new AtomicBoolean(true);

    private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

    private final Map<String, ShardRegion<Journal>> regions = new ConcurrentHashMap<>();

    private final List<CompletableFuture<Void>> senders = new ArrayList<>();

    private final AtomicLong failedAsks = new AtomicLong();

    private final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

    LoadDriver(List<String> ids) {
        this.ids = ids;
    }

    void start(String name, ShardRegion<Journal> region) {
        AtomicLong n = new AtomicLong();
        sent.put(name, n);
        regions.put(name, region);
        senders.add(CompletableFuture.runAsync(
                () -> {
                    List<CompletableFuture<Long>> window = new ArrayList<>();
                    while (sending.get()) {
                        long seq = n.get() + 1;
                        for (int e = 0; e < ids.size(); e++) {
                            SequenceChecker.Seq msg = new SequenceChecker.Seq(name, seq);
                            if (e % 4 == 0) {
                                window.add(region.ask(ids.get(e), msg, Long.class, Duration.ofSeconds(30)));
                            } else {
                                region.tell(ids.get(e), msg);
                            }
                        }
                        n.set(seq);
                        if (window.size() >= 32) {
                            drain(window);
                        }
                    }
                    drain(window);
                },
                threads));
    }

    private void drain(List<CompletableFuture<Long>> window) {
        for (CompletableFuture<Long> f : window) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                failedAsks.incrementAndGet();
                failures.add(e);
            }
        }
        window.clear();
    }

    /** Waits until every sender has sent at least {@code more} further rounds. */
    void awaitProgress(long more) {
        Map<String, Long> start = new ConcurrentHashMap<>();
        sent.forEach((k, v) -> start.put(k, v.get()));
        org.awaitility.Awaitility.await("senders make progress")
                .atMost(Duration.ofSeconds(60))
                .until(() ->
                        sent.entrySet().stream().allMatch(e -> e.getValue().get() >= start.get(e.getKey()) + more));
    }

    void stopSending() throws Exception {
        sending.set(false);
        CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }

    long failedAsks() {
        return failedAsks.get();
    }

    /**
     * The entity's report, asked through every sender's region in turn: an ask from a region comes after that
     * region's tells (per-sender order), so the last answer covers every message sent.
     */
    private SequenceChecker.Report report(String id) throws Exception {
        SequenceChecker.Report r = null;
        for (ShardRegion<Journal> region : regions.values()) {
            r = region.ask(id, new SequenceChecker.GetReport(), SequenceChecker.Report.class)
                    .get(30, TimeUnit.SECONDS);
        }
        return r;
    }

    /** Every message of every sender arrived in order; no ask failed; never two live instances of an entity. */
    void assertNothingLost() throws Exception {
        stopSending();
        assertThat(failures).as("failed asks").isEmpty();
        for (String id : ids) {
            SequenceChecker.Report r = report(id);
            assertThat(r.violations()).as("order violations at %s", id).isZero();
            sent.forEach((sender, n) -> assertThat(r.last().get(sender))
                    .as("last message of %s at %s", sender, id)
                    .isEqualTo(n.get()));
        }
        assertThat(Journal.MAX_LIVE.get())
                .as("most instances of one entity alive at once")
                .isEqualTo(1);
    }

    /**
     * After a crash of a node hosting the entities: the messages still in its mailboxes are lost (a contiguous run
     * per sender and entity, so at most one gap each), their asks failed fast as unreachable, and everything else
     * arrived in order, including what the other nodes buffered during the handoff.
     */
    void assertOnlyTheCrashedMailboxesLost() throws Exception {
        stopSending();
        assertThat(failures)
                .as("failed asks")
                .allSatisfy(f -> assertThat(f).hasCauseInstanceOf(dev.sharding.EntityUnreachableException.class));
        for (String id : ids) {
            SequenceChecker.Report r = report(id);
            assertThat(r.violations()).as("gaps at %s", id).isLessThanOrEqualTo(sent.size());
            sent.forEach((sender, n) -> assertThat(r.last().get(sender))
                    .as("last message of %s at %s", sender, id)
                    .isEqualTo(n.get()));
        }
    }

    @Override
    public void close() {
        sending.set(false);
        threads.shutdownNow();
    }
}
