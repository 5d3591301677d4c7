package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.AutoConfigureShardingTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * When no node of the cluster can host accounts (here the only node is proxy-only), asks time out and the API answers
 * 503 with a JSON problem instead of hanging or failing with 500.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"sharding.entities.account.proxy-only=true", "sharding.ask-timeout=300ms"})
@AutoConfigureShardingTest
class ShardingUnavailableTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @LocalServerPort
    private int port;

    @Test
    void askThatTimesOutAnswers503() {
        JsonHttp.Answer read = http.get("http://127.0.0.1:" + port + "/accounts/nowhere");
        assertThat(read.status()).as("%s", read).isEqualTo(503);
        assertThat(read.contentType()).startsWith("application/problem+json");
        assertThat(read.body().get("status").intValue()).isEqualTo(503);
        assertThat(read.body().get("detail").asString()).contains("timed out");

        JsonHttp.Answer deposit =
                http.postJson("http://127.0.0.1:" + port + "/accounts/nowhere/deposit", "{\"amount\": 5}");
        assertThat(deposit.status()).as("%s", deposit).isEqualTo(503);
        assertThat(deposit.body().get("status").intValue()).isEqualTo(503);
    }
}
