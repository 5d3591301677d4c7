package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load generator against a small HTTP server that keeps what it was sent. */
class HttpLoadTest {

    private static final Pattern DEPOSIT = Pattern.compile("/accounts/([^/]+)/deposit");

    private static final Pattern AMOUNT = Pattern.compile("\"amount\":(\\d+)");

    private final Map<String, AtomicLong> deposited = new ConcurrentHashMap<>();

    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/accounts/", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Matcher path = DEPOSIT.matcher(exchange.getRequestURI().getPath());
            if (exchange.getRequestMethod().equals("POST") && path.matches()) {
                Matcher amount = AMOUNT.matcher(new String(body, StandardCharsets.UTF_8));
                if (amount.find()) {
                    deposited
                            .computeIfAbsent(path.group(1), k -> new AtomicLong())
                            .addAndGet(Long.parseLong(amount.group(1)));
                }
            }
            byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aWarmUpDepositsOnlyToItsOwnAccountsAndCountsWhatWasAnswered() throws InterruptedException {
        HttpLoad.Outcome out = new HttpLoad(
                        List.of(server.getAddress().getPort()), 2, 10, HttpLoad.WARM_UP_PREFIX, 0, 100_000_000L)
                .run(k -> {});

        assertThat(out.allStopped()).isTrue();
        assertThat(deposited).isNotEmpty();
        assertThat(deposited.keySet()).allMatch(id -> id.matches("w-[0-9]"));
        long answered = out.phases().stream().mapToLong(t -> t.ok).sum();
        assertThat(answered).isPositive();
        long[] seen = new long[10];
        deposited.forEach((id, sum) -> seen[Integer.parseInt(id.substring(2))] = sum.get());
        assertThat(out.acked()).isEqualTo(seen);
        assertThat(Arrays.stream(out.uncertain()).sum()).isZero();
    }

    @Test
    void theMeasuredPhasesUseTheAccountsTheBalanceCheckReads() throws InterruptedException {
        new HttpLoad(List.of(server.getAddress().getPort()), 1, 5, HttpLoad.MEASURED_PREFIX, 0, 50_000_000L)
                .run(k -> {});

        assertThat(deposited.keySet()).isNotEmpty().allMatch(id -> id.matches("a-[0-4]"));
    }
}
