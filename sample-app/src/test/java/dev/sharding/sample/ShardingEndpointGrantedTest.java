package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

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
        properties = {
            "sharding.jgroups.config=shared-loopback.xml", "sharding.store.embedded-path=target/test-db/${random.uuid}",
            "sharding.cluster-name=sample-granted-${random.uuid}", "sharding.node-name=rw-node",
            "management.endpoint.sharding.access=unrestricted"
        })
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
    }
}
