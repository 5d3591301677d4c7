package dev.sharding.autoconfigure.observation;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * An application with Spring Boot's tracing (Micrometer Tracing over OpenTelemetry) that keeps every span it ends in
 * memory, {@link #SPANS}, shared by the nodes of one JVM; each span names its node as its service
 * ({@code spring.application.name}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(Echo.class)
public class TracedApplication {

    /** Every span ended by any node of this JVM. */
    static final List<SpanData> SPANS = new CopyOnWriteArrayList<>();

    /** The resource attribute naming the node that ended a span. */
    static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");

    /**
     * Records each span as it ends, before any exporter sees it.
     *
     * @return the processor
     */
    @Bean
    SpanProcessor recordingSpanProcessor() {
        return new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {}

            @Override
            public boolean isStartRequired() {
                return false;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                SPANS.add(span.toSpanData());
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        };
    }
}
