package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.AutoConfigureShardingTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The sharding endpoint's default access is read-only: its reads answer, its write operations (rebalance, hand off a
 * shard) are refused over HTTP; and a region's entity listing is paged.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sharding.node-name=ro-node")
@AutoConfigureShardingTest
class ShardingEndpointReadOnlyTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @LocalServerPort
    private int port;

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Test
    void writeOperationsAreRefusedByDefault() {
        assertThat(http.get(url("/actuator/sharding")).status()).isEqualTo(200);

        JsonHttp.Answer rebalance = http.post(url("/actuator/sharding"), "application/json", "{}");
        assertThat(rebalance.status()).as("%s", rebalance).isEqualTo(405);
        assertThat(rebalance.text()).doesNotContain("accepted");

        JsonHttp.Answer handOff = http.postJson(url("/actuator/sharding/account"), "{\"shard\": 1}");
        assertThat(handOff.status()).as("%s", handOff).isEqualTo(405);
        assertThat(handOff.text()).doesNotContain("accepted");

        JsonHttp.Answer passivation =
                http.postJson(url("/actuator/sharding/account/passivation"), "{\"activeEntityLimit\": 1}");
        // no read operation has this path, so the refused write is not found at all
        assertThat(passivation.status()).as("%s", passivation).isEqualTo(404);
        assertThat(passivation.text()).doesNotContain("accepted");
    }

    @Test
    void theEntityListingIsPaged() {
        for (int i = 0; i < 5; i++) {
            JsonHttp.Answer a = http.postJson(url("/accounts/page-" + i + "/deposit"), "{\"amount\": 1}");
            assertThat(a.status()).as("%s", a).isEqualTo(200);
        }
        JsonHttp.Answer page = http.get(url("/actuator/sharding/account?offset=1&limit=2"));
        assertThat(page.status()).as("%s", page).isEqualTo(200);
        assertThat(page.body().get("entityCount").intValue()).isGreaterThanOrEqualTo(5);
        assertThat(page.body().get("limit").intValue()).isEqualTo(2);
        assertThat(page.body().get("more").booleanValue()).isTrue();
        int listed = 0;
        for (var shard : page.body().get("shards")) {
            listed += shard.get("entities").size();
        }
        assertThat(listed).isEqualTo(2);

        JsonHttp.Answer capped = http.get(url("/actuator/sharding/account?limit=1000000"));
        assertThat(capped.body().get("limit").intValue()).isEqualTo(10_000);
    }
}
