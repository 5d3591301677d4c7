package dev.sharding.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AskTimeoutException;
import dev.sharding.EntityException;
import dev.sharding.ShardRegion;
import dev.sharding.autoconfigure.bank.BankCluster;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * One trace over two nodes, as an application with Spring Boot's tracing gets it (Micrometer Tracing over
 * OpenTelemetry, every trace sampled): an ask made inside an observation of the caller's node continues on the node
 * where its entity lives, the entity's span a child of the ask's, each span ended by its own node's tracer, and the
 * handler runs with the entity's span current. Asks to an entity on the caller's node are traced the same way, and a
 * failed or timed-out ask ends its spans with the error and its outcome.
 */
class TracingAcrossNodesTests {

    private static final AttributeKey<String> TYPE = AttributeKey.stringKey("sharding.type");

    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("sharding.outcome");

    private static final AttributeKey<String> REMOTE = AttributeKey.stringKey("sharding.remote");

    private static final AttributeKey<String> KIND = AttributeKey.stringKey("sharding.kind");

    private static final AttributeKey<String> ENTITY_ID = AttributeKey.stringKey("sharding.entity.id");

    private final BankCluster cluster = new BankCluster(TracedApplication.class);

    private ConfigurableApplicationContext n1;

    private ConfigurableApplicationContext n2;

    @BeforeEach
    void start() {
        TracedApplication.SPANS.clear();
        this.n1 = node("n1");
        this.n2 = node("n2");
    }

    private ConfigurableApplicationContext node(String name) {
        return this.cluster.start(
                name, "--spring.application.name=" + name, "--management.tracing.sampling.probability=1.0");
    }

    @AfterEach
    void stop() {
        this.cluster.close();
        Echo.HELD.values().forEach(f -> f.complete("closing"));
        Echo.HELD.clear();
    }

    @SuppressWarnings("unchecked")
    private static ShardRegion<Echo> echoes(ConfigurableApplicationContext context) {
        return (ShardRegion<Echo>)
                context.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Echo.class))
                        .getObject();
    }

    /** An id whose entity lives on the given node. */
    private String entityOn(String node) {
        return IntStream.range(0, 200)
                .mapToObj(i -> node + "-echo-" + i)
                .filter(id -> echoes(this.n1)
                        .ask(id, new Echo.Ping(), Echo.Pong.class)
                        .join()
                        .node()
                        .equals(node))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no echo-* lives on " + node));
    }

    private static SpanData span(String description, Predicate<SpanData> which) {
        return Awaitility.await(description + " among " + TracedApplication.SPANS.size() + " spans")
                .atMost(Duration.ofSeconds(20))
                .until(
                        () -> TracedApplication.SPANS.stream()
                                .filter(which)
                                .reduce((first, second) -> second)
                                .orElse(null),
                        s -> s != null);
    }

    private static Predicate<SpanData> named(String name, String entityId) {
        return s ->
                s.getName().equals(name) && entityId.equals(s.getAttributes().get(ENTITY_ID));
    }

    private static String node(SpanData span) {
        return span.getResource().getAttribute(TracedApplication.SERVICE_NAME);
    }

    /** Asks inside an observation of n1, as a web request would, and returns that observation's span. */
    private SpanData askWithinRequest(String id, Echo.Pong[] answer) {
        ObservationRegistry registry = this.n1.getBean(ObservationRegistry.class);
        String request = "request-" + id;
        Observation.createNotStarted("test.request", registry)
                .contextualName(request)
                .observe(() -> {
                    try {
                        answer[0] = echoes(this.n1)
                                .ask(id, new Echo.Ping(), Echo.Pong.class)
                                .get(BankCluster.REPLY_SECONDS, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        return span("the request's span", s -> s.getName().equals(request));
    }

    @Test
    void oneTraceSpansTheCallersNodeAndTheEntitysNode() {
        for (String host : List.of("n2", "n1")) {
            String id = entityOn(host);
            Echo.Pong[] answer = new Echo.Pong[1];
            SpanData request = askWithinRequest(id, answer);
            SpanData ask = span(
                    "the ask's span",
                    named("ask echo", id).and(s -> s.getTraceId().equals(request.getTraceId())));
            SpanData handle = span(
                    "the entity's span",
                    named("handle echo", id).and(s -> s.getTraceId().equals(request.getTraceId())));

            assertThat(answer[0].node()).isEqualTo(host);
            assertThat(ask.getParentSpanId())
                    .as("the ask is a child of the request")
                    .isEqualTo(request.getSpanId());
            assertThat(handle.getTraceId()).as("one trace").isEqualTo(ask.getTraceId());
            assertThat(handle.getParentSpanId())
                    .as("the entity's span is a child of the ask's")
                    .isEqualTo(ask.getSpanId());
            assertThat(node(request)).isEqualTo("n1");
            assertThat(node(ask)).as("the ask traced by the caller's node").isEqualTo("n1");
            assertThat(node(handle))
                    .as("the handling traced where the entity lives")
                    .isEqualTo(host);
            assertThat(answer[0].traceId())
                    .as("the trace current in the handler")
                    .isEqualTo(ask.getTraceId());
            assertThat(answer[0].spanId()).as("the span current in the handler").isEqualTo(handle.getSpanId());

            assertThat(ask.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(handle.getKind()).isEqualTo(SpanKind.SERVER);
            assertThat(ask.getAttributes().get(TYPE)).isEqualTo("echo");
            assertThat(ask.getAttributes().get(OUTCOME)).isEqualTo("success");
            assertThat(ask.getAttributes().get(REMOTE)).isEqualTo(String.valueOf(host.equals("n2")));
            assertThat(handle.getAttributes().get(TYPE)).isEqualTo("echo");
            assertThat(handle.getAttributes().get(KIND)).isEqualTo("ask");
            assertThat(handle.getAttributes().get(OUTCOME)).isEqualTo("success");
            assertThat(List.of(
                            ask.getStatus().getStatusCode(), handle.getStatus().getStatusCode()))
                    .doesNotContain(StatusCode.ERROR);
        }
    }

    @Test
    void aTellIsTracedToItsHandling() {
        String id = entityOn("n2");
        echoes(this.n1).tell(id, new Echo.Ping());
        SpanData tell = span("the tell's span", named("tell echo", id));
        SpanData handle = span(
                "the handling of the tell",
                named("handle echo", id).and(s -> s.getTraceId().equals(tell.getTraceId())));
        assertThat(tell.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(handle.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(handle.getParentSpanId()).isEqualTo(tell.getSpanId());
        assertThat(node(handle)).isEqualTo("n2");
        assertThat(handle.getAttributes().get(KIND)).isEqualTo("tell");
    }

    @Test
    void aFailedOrTimedOutAskEndsItsSpansWithTheErrorAndTheOutcome() throws Exception {
        String id = entityOn("n2");
        assertThat(failure(echoes(this.n1).ask(id, new Echo.Fail(), Echo.Pong.class)))
                .isInstanceOf(EntityException.class);
        SpanData failed = span(
                "the failed ask",
                named("ask echo", id).and(s -> "failed".equals(s.getAttributes().get(OUTCOME))));
        SpanData failedHandle = span(
                "the failed handling",
                named("handle echo", id).and(s -> s.getTraceId().equals(failed.getTraceId())));
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failedHandle.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failedHandle.getAttributes().get(OUTCOME)).isEqualTo("failed");
        assertThat(failedHandle.getEvents())
                .as("the entity's span records what the handler threw")
                .anySatisfy(e -> assertThat(e.getAttributes().toString()).contains("IllegalStateException"));

        assertThat(failure(echoes(this.n1).ask(id, new Echo.Stall(), Echo.Pong.class, Duration.ofMillis(300))))
                .isInstanceOf(AskTimeoutException.class);
        SpanData timedOut = span(
                "the timed-out ask",
                named("ask echo", id)
                        .and(s -> "timeout".equals(s.getAttributes().get(OUTCOME))));
        assertThat(timedOut.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(timedOut.getAttributes().get(REMOTE)).isEqualTo("true");
        Awaitility.await("the stalled handler reached")
                .atMost(Duration.ofSeconds(20))
                .until(() -> Echo.HELD.containsKey(id));
        Echo.HELD.get(id).complete("released");
        SpanData late = span(
                "the stalled handling, ended when its reply went",
                named("handle echo", id).and(s -> s.getTraceId().equals(timedOut.getTraceId())));
        assertThat(late.getAttributes().get(OUTCOME)).isEqualTo("success");
        assertThat(late.getParentSpanId()).isEqualTo(timedOut.getSpanId());
    }

    private static Throwable failure(CompletableFuture<?> ask) throws Exception {
        try {
            ask.get(BankCluster.REPLY_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("the ask succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
