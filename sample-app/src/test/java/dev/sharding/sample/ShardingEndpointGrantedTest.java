package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.AutoConfigureShardingTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Once the application grants it ({@code management.endpoint.sharding.access=unrestricted}), the sharding endpoint's
 * write operations are served.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"sharding.node-name=rw-node", "management.endpoint.sharding.access=unrestricted"})
@AutoConfigureShardingTest
class ShardingEndpointGrantedTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @LocalServerPort
    private int port;

    @Test
    void writeOperationsAreServedOnceGranted() {
        String url = "http://127.0.0.1:" + port;
        assertThat(http.postJson(url + "/accounts/granted/deposit", "{\"amount\": 1}")
                        .status())
                .isEqualTo(200);

        JsonHttp.Answer rebalance = http.post(url + "/actuator/sharding", "application/json", "{}");
        assertThat(rebalance.status()).as("%s", rebalance).isEqualTo(200);
        assertThat(rebalance.body().get("accepted").booleanValue()).isTrue();

        JsonHttp.Answer unknownNode =
                http.postJson(url + "/actuator/sharding/account", "{\"shard\": 1, \"node\": \"nobody\"}");
        assertThat(unknownNode.status()).as("%s", unknownNode).isEqualTo(400);
        assertThat(unknownNode.body().get("message").asString()).isEqualTo("Unknown node nobody");

        JsonHttp.Answer passivation = http.postJson(
                url + "/actuator/sharding/account/passivation",
                "{\"strategy\": \"least-frequently-used\", \"activeEntityLimit\": 500}");
        assertThat(passivation.status()).as("%s", passivation).isEqualTo(200);
        assertThat(passivation.body().get("message").asString()).endsWith(": least-frequently-used, limit 500");
        JsonHttp.Answer badStrategy =
                http.postJson(url + "/actuator/sharding/account/passivation", "{\"strategy\": \"fifo\"}");
        assertThat(badStrategy.status()).as("%s", badStrategy).isEqualTo(400);
        assertThat(badStrategy.body().get("message").asString()).startsWith("Unknown passivation strategy 'fifo'");
        JsonHttp.Answer badLimit =
                http.postJson(url + "/actuator/sharding/account/passivation", "{\"activeEntityLimit\": -1}");
        assertThat(badLimit.status()).as("%s", badLimit).isEqualTo(400);
        JsonHttp.Answer unknownType =
                http.postJson(url + "/actuator/sharding/nosuch/passivation", "{\"activeEntityLimit\": 1}");
        assertThat(unknownType.status()).as("%s", unknownType).isEqualTo(400);
    }
}
