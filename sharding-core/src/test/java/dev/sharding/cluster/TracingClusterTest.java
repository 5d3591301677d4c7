package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AskTimeoutException;
import dev.sharding.EntityContext;
import dev.sharding.EntityException;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardedEntity;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.UnhandledMessageException;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.MessageTracing;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's {@link MessageTracing} follows each message from its caller to its entity: the trace started on the
 * caller's thread continues where the entity runs, on another node (the headers cross in the envelope) or on the
 * caller's own (they ride in the mailbox), through the slot's buffer, the local round trip of the test mode and the
 * ids of idempotent asks; the handler runs inside the trace's scope on the entity's thread; each side ends once with
 * the ask's outcome. A node that does not trace serves traced messages as any other.
 */
class TracingClusterTest {

    /** One side of one traced message, as the recording tracer saw it. */
    static final class Span {

        final long id;

        final String node;

        final String kind;

        final String entityId;

        final String traceId;

        final @Nullable String parentId;

        final String startThread;

        volatile @Nullable String scopeOpenThread;

        volatile @Nullable String scopeCloseThread;

        volatile @Nullable AskOutcome outcome;

        volatile boolean remote;

        volatile @Nullable Throwable error;

        final AtomicInteger ends = new AtomicInteger();

        Span(long id, String node, String kind, String entityId, String traceId, @Nullable String parentId) {
            this.id = id;
            this.node = node;
            this.kind = kind;
            this.entityId = entityId;
            this.traceId = traceId;
            this.parentId = parentId;
            this.startThread = Thread.currentThread().getName();
        }

        boolean ended() {
            return ends.get() > 0;
        }

        @Override
        public String toString() {
            return kind + "#" + id + "[" + node + ", " + entityId + ", trace " + traceId + ", parent " + parentId + ", "
                    + outcome + "]";
        }
    }

    /** The trace id current on this thread, as a scope of the recording tracer set it. */
    static final ThreadLocal<String> CURRENT_TRACE = new ThreadLocal<>();

    private static final AtomicLong ids = new AtomicLong();

    /** A tracer that records every span of every node, and carries the trace as two headers. */
    static final class Recording implements MessageTracing {

        final String node;

        final List<Span> spans;

        /** More headers to send than an envelope may carry, to see the excess left out. */
        volatile int extraHeaders;

        Recording(String node, List<Span> spans) {
            this.node = node;
            this.spans = spans;
        }

        @Override
        public Sending startAsk(String typeName, String entityId, Object message) {
            return send("ask", entityId);
        }

        @Override
        public Sending startTell(String typeName, String entityId, Object message) {
            return send("tell", entityId);
        }

        private Sending send(String kind, String entityId) {
            long id = ids.incrementAndGet();
            Span span = new Span(id, node, kind, entityId, "trace-" + id, null);
            spans.add(span);
            Map<String, String> headers = new LinkedHashMap<>(); // the trace first: the excess is cut from the end
            headers.put("trace-id", span.traceId);
            headers.put("parent-id", String.valueOf(span.id));
            for (int i = 0; i < extraHeaders; i++) {
                headers.put("extra-" + i, "x");
            }
            return new Sending() {
                @Override
                public Map<String, String> headers() {
                    return headers;
                }

                @Override
                public void end(AskOutcome outcome, boolean remote, @Nullable Throwable error) {
                    span.outcome = outcome;
                    span.remote = remote;
                    span.error = error;
                    span.ends.incrementAndGet();
                }
            };
        }

        @Override
        public Handling startHandling(
                String typeName, String entityId, Object message, Map<String, String> headers, boolean ask) {
            assertThat(headers.keySet()).hasSizeLessThanOrEqualTo(MessageTracing.MAX_HEADERS);
            assertThatThrownBy(() -> headers.put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
            Span span = new Span(
                    ids.incrementAndGet(),
                    node,
                    ask ? "handle-ask" : "handle-tell",
                    entityId,
                    headers.get("trace-id"),
                    headers.get("parent-id"));
            spans.add(span);
            return new Handling() {
                @Override
                public Scope openScope() {
                    span.scopeOpenThread = Thread.currentThread().getName();
                    CURRENT_TRACE.set(span.traceId);
                    return () -> {
                        CURRENT_TRACE.remove();
                        span.scopeCloseThread = Thread.currentThread().getName();
                    };
                }

                @Override
                public void end(AskOutcome outcome, @Nullable Throwable error) {
                    span.outcome = outcome;
                    span.error = error;
                    span.ends.incrementAndGet();
                }
            };
        }
    }

    /** An entity that says which trace its handler ran in. */
    @ShardedEntity(type = "probe", numberOfShards = 20)
    public static class Probe {

        /** Replies held back until the test lets them go. */
        static final Map<String, CompletableFuture<Seen>> HELD = new ConcurrentHashMap<>();

        private final EntityContext context;

        /**
         * Creates the entity.
         *
         * @param context its context
         */
        public Probe(EntityContext context) {
            this.context = context;
        }

        /** Answers where it runs and in which trace. */
        @EntityHandler
        public Seen on(Look look) {
            return new Seen(context.nodeName(), CURRENT_TRACE.get());
        }

        /** Throws. */
        @EntityHandler
        public Seen on(Boom boom) {
            throw new IllegalStateException("boom in " + CURRENT_TRACE.get());
        }

        /** Replies once the test lets it. */
        @EntityHandler
        public CompletionStage<Seen> on(Hold hold) {
            String trace = CURRENT_TRACE.get();
            return HELD.computeIfAbsent(context.entityId(), k -> new CompletableFuture<>())
                    .thenApply(s -> new Seen(context.nodeName(), trace));
        }

        /** Asks where and in which trace. */
        public record Look() {}

        /** Makes the handler throw. */
        public record Boom() {}

        /** Makes the handler's reply wait. */
        public record Hold() {}

        /** The answer. @param node where the entity runs @param trace the trace current in its handler */
        public record Seen(String node, @Nullable String trace) {}
    }

    private final List<Span> spans = new CopyOnWriteArrayList<>();

    private final Map<String, Recording> tracers = new ConcurrentHashMap<>();

    /** The nodes that do not trace. */
    private final Set<String> untraced = ConcurrentHashMap.newKeySet();

    private TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s)
            .entityType(EntityType.of(Probe.class, Probe::new))
            .entityType(Wallet.type())
            .tracing(tracing(s)));

    private MessageTracing tracing(ShardingSettings settings) {
        String node = String.valueOf(settings.nodeName());
        if (untraced.contains(node)) {
            return MessageTracing.NONE;
        }
        return tracers.computeIfAbsent(node, n -> new Recording(n, spans));
    }

    @AfterEach
    void stop() {
        cluster.close();
        Probe.HELD.values().forEach(f -> f.complete(null));
        Probe.HELD.clear();
    }

    private static String entityOn(ShardRegion<Probe> probes, String node, String prefix) {
        return IntStream.range(0, 300)
                .mapToObj(i -> prefix + i)
                .filter(id -> probes.ask(id, new Probe.Look(), Probe.Seen.class)
                        .join()
                        .node()
                        .equals(node))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + "* lives on " + node));
    }

    private Span callerSpan(String kind, String entityId) {
        return Awaitility.await(kind + " span for " + entityId + " among " + spans)
                .until(
                        () -> spans.stream()
                                .filter(s -> s.kind.equals(kind) && s.entityId.equals(entityId))
                                .reduce((first, second) -> second)
                                .orElse(null),
                        s -> s != null && s.ended());
    }

    private Span handlingOf(Span caller) {
        return Awaitility.await("the handling span whose parent is " + caller + " among " + spans)
                .atMost(Duration.ofSeconds(20))
                .until(
                        () -> spans.stream()
                                .filter(s -> String.valueOf(caller.id).equals(s.parentId))
                                .findFirst()
                                .orElse(null),
                        s -> s != null && s.ended());
    }

    private static Throwable failure(CompletableFuture<?> ask) throws Exception {
        try {
            ask.get(30, TimeUnit.SECONDS);
            throw new AssertionError("the ask succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void oneTraceSpansTheCallersNodeAndTheEntitysNode() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode a = nodes.get(0);
        ShardingNode b = nodes.get(1);
        ShardRegion<Probe> probes = a.region(Probe.class);
        String remote = entityOn(probes, b.nodeName(), "r");
        String local = entityOn(probes, a.nodeName(), "l");

        for (String id : List.of(remote, local)) {
            boolean isRemote = id.equals(remote);
            Probe.Seen seen = probes.ask(id, new Probe.Look(), Probe.Seen.class).get(30, TimeUnit.SECONDS);
            Span ask = callerSpan("ask", id);
            Span handling = handlingOf(ask);
            assertThat(seen.trace()).as("the trace current in the handler").isEqualTo(ask.traceId);
            assertThat(ask.node).isEqualTo(a.nodeName());
            assertThat(ask.startThread).isEqualTo(Thread.currentThread().getName());
            assertThat(ask.outcome).isEqualTo(AskOutcome.SUCCESS);
            assertThat(ask.remote).isEqualTo(isRemote);
            assertThat(handling.node).isEqualTo(isRemote ? b.nodeName() : a.nodeName());
            assertThat(handling.kind).isEqualTo("handle-ask");
            assertThat(handling.traceId).isEqualTo(ask.traceId);
            assertThat(handling.startThread)
                    .as("started on the entity's thread")
                    .isNotEqualTo(ask.startThread)
                    .isEqualTo(handling.scopeOpenThread)
                    .isEqualTo(handling.scopeCloseThread);
            assertThat(handling.outcome).isEqualTo(AskOutcome.SUCCESS);
            assertThat(handling.error).isNull();
            assertThat(List.of(ask.ends.get(), handling.ends.get())).containsOnly(1);
        }
        assertThat(spans.stream().filter(s -> s.node.equals(b.nodeName())).count())
                .as("node b traced only what it handled")
                .isEqualTo(spans.stream()
                        .filter(s -> s.kind.startsWith("handle") && s.node.equals(b.nodeName()))
                        .count());
    }

    @Test
    void aTellIsTracedFromItsSendToItsHandling() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Probe> probes = nodes.get(0).region(Probe.class);
        String remote = entityOn(probes, nodes.get(1).nodeName(), "t");
        probes.tell(remote, new Probe.Look());
        Span tell = callerSpan("tell", remote);
        assertThat(tell.outcome).isEqualTo(AskOutcome.SUCCESS);
        Span handling = handlingOf(tell);
        assertThat(handling.kind).isEqualTo("handle-tell");
        assertThat(handling.node).isEqualTo(nodes.get(1).nodeName());
        assertThat(handling.traceId).isEqualTo(tell.traceId);
        assertThat(handling.outcome).isEqualTo(AskOutcome.SUCCESS);
    }

    @Test
    void failedTimedOutAndRejectedAsksEndTheirTracesWithTheirOutcome() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Probe> probes = nodes.get(0).region(Probe.class);
        for (String id : List.of(
                entityOn(probes, nodes.get(1).nodeName(), "f"),
                entityOn(probes, nodes.get(0).nodeName(), "f"))) {
            assertThat(failure(probes.ask(id, new Probe.Boom(), Probe.Seen.class)))
                    .isInstanceOf(EntityException.class);
            Span ask = callerSpan("ask", id);
            assertThat(ask.outcome).isEqualTo(AskOutcome.FAILED);
            assertThat(ask.error).isInstanceOf(EntityException.class);
            Span handling = handlingOf(ask);
            assertThat(handling.outcome).isEqualTo(AskOutcome.FAILED);
            assertThat(handling.error)
                    .as("the entity's side ends with what the handler threw")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom in " + ask.traceId);

            assertThat(failure(probes.ask(id, new Probe.Hold(), Probe.Seen.class, Duration.ofMillis(300))))
                    .isInstanceOf(AskTimeoutException.class);
            Span timedOut = callerSpan("ask", id);
            assertThat(timedOut.outcome).isEqualTo(AskOutcome.TIMEOUT);
            assertThat(timedOut.error).isInstanceOf(AskTimeoutException.class);
            Span held = Awaitility.await()
                    .until(
                            () -> spans.stream()
                                    .filter(s -> String.valueOf(timedOut.id).equals(s.parentId))
                                    .findFirst()
                                    .orElse(null),
                            s -> s != null);
            assertThat(held.ended()).as("still waiting for its reply").isFalse();
            Probe.HELD.get(id).complete(new Probe.Seen("", null));
            Awaitility.await("the held reply sent").until(held::ended);
            assertThat(held.outcome).isEqualTo(AskOutcome.SUCCESS);
            assertThat(timedOut.ends).as("the late reply changes nothing").hasValue(1);
            Probe.HELD.remove(id);
        }

        String any = entityOn(probes, nodes.get(1).nodeName(), "u");
        assertThat(failure(probes.ask(any, "no handler takes a String", Probe.Seen.class)))
                .isInstanceOf(UnhandledMessageException.class);
        Span rejected = callerSpan("ask", any);
        assertThat(rejected.outcome).isEqualTo(AskOutcome.REJECTED);
        assertThat(spans).noneMatch(s -> String.valueOf(rejected.id).equals(s.parentId));
    }

    @Test
    void idempotentAsksAndTheLocalRoundTripKeepTheTrace() throws Exception {
        cluster.close();
        cluster = new TestCluster(s -> ShardingNode.builder(s)
                .entityType(Wallet.type())
                .serializeLocalMessages(true)
                .tracing(tracing(s)));
        ShardingNode node = cluster.startNode();
        ShardRegion<Wallet> wallets = node.region(Wallet.class);
        for (int i = 0; i < 2; i++) {
            Wallet.Reply reply = wallets.ask("w", new Wallet.Deposit(5), Wallet.Reply.class, "deposit-1")
                    .get(30, TimeUnit.SECONDS);
            assertThat(reply.deposits()).as("applied once").isEqualTo(1);
            Span ask = callerSpan("ask", "w");
            assertThat(ask.outcome).isEqualTo(AskOutcome.SUCCESS);
            Span handling = handlingOf(ask);
            assertThat(handling.traceId).isEqualTo(ask.traceId);
            assertThat(handling.outcome).isEqualTo(AskOutcome.SUCCESS);
        }
        assertThat(spans).hasSize(4);
    }

    @Test
    void headersOverTheLimitAreLeftOutAndTheMessageStillArrives() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Probe> probes = nodes.get(0).region(Probe.class);
        String remote = entityOn(probes, nodes.get(1).nodeName(), "x");
        tracers.get(nodes.get(0).nodeName()).extraHeaders = 40;
        assertThat(probes.ask(remote, new Probe.Look(), Probe.Seen.class)
                        .get(30, TimeUnit.SECONDS)
                        .node())
                .isEqualTo(nodes.get(1).nodeName());
        Span ask = callerSpan("ask", remote);
        assertThat(handlingOf(ask).traceId).isEqualTo(ask.traceId);
    }

    @Test
    void aNodeThatDoesNotTraceServesTracedMessages() throws Exception {
        untraced.add("n2");
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode traced = nodes.get(0);
        ShardingNode plain = nodes.get(1);
        assertThat(plain.nodeName()).isEqualTo("n2");
        ShardRegion<Probe> probes = traced.region(Probe.class);
        String onPlain = entityOn(probes, plain.nodeName(), "p");
        Probe.Seen seen =
                probes.ask(onPlain, new Probe.Look(), Probe.Seen.class).get(30, TimeUnit.SECONDS);
        assertThat(seen.node()).isEqualTo(plain.nodeName());
        assertThat(seen.trace()).isNull();
        assertThat(callerSpan("ask", onPlain).outcome).isEqualTo(AskOutcome.SUCCESS);
        assertThat(spans).allMatch(s -> s.node.equals(traced.nodeName()));

        String onTraced = entityOn(plain.region(Probe.class), traced.nodeName(), "q");
        assertThat(plain.region(Probe.class)
                        .ask(onTraced, new Probe.Look(), Probe.Seen.class)
                        .get(30, TimeUnit.SECONDS)
                        .trace())
                .as("no headers came with it, so nothing to continue")
                .isNull();
    }
}
