package dev.sharding.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small HTTP client for the tests: sends a request to one node and reads the answer as JSON when it is JSON.
 */
final class JsonHttp {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Duration requestTimeout;

    /**
     * A client whose requests fail after the given time.
     *
     * @param requestTimeout how long one request may take
     */
    JsonHttp(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    /**
     * One answer.
     *
     * @param status the HTTP status
     * @param contentType the Content-Type header, or empty
     * @param text the body as text
     * @param json the body as JSON, or {@code null} when it is not JSON
     * @param retryAfter the Retry-After header, or {@code null}
     */
    record Answer(
            int status,
            String contentType,
            String text,
            @Nullable JsonNode json,
            @Nullable String retryAfter) {

        /** The body as JSON; fails the test when it is not JSON. */
        JsonNode body() {
            if (json == null) {
                throw new AssertionError("Expected a JSON body, got " + status + " " + contentType + ": " + text);
            }
            return json;
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + text;
        }
    }

    Answer get(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).GET());
    }

    Answer post(String url, @Nullable String contentType, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b);
    }

    Answer postJson(String url, String body) {
        return post(url, "application/json", body);
    }

    /** A JSON POST with an {@code Idempotency-Key} header. */
    Answer postJson(String url, String body, String idempotencyKey) {
        return send(HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey));
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r =
                    client.send(request.timeout(requestTimeout).build(), HttpResponse.BodyHandlers.ofString());
            String type = r.headers().firstValue("Content-Type").orElse("");
            JsonNode json = null;
            if (type.contains("json")) {
                try {
                    json = JSON.readTree(r.body());
                } catch (JacksonException e) {
                    json = null;
                }
            }
            return new Answer(
                    r.statusCode(),
                    type,
                    r.body(),
                    json,
                    r.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    request.build().method() + " " + request.build().uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
