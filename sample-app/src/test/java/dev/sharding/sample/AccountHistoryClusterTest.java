package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.ShardingTestCluster;
import dev.sharding.boot.test.ShardingTestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The account history on the sample's own store, the embedded H2 file (here in a folder of the test's), on two nodes
 * in one JVM: deposits through both, some sent twice with their {@code Idempotency-Key}; each account's history then
 * holds each acknowledged deposit once, in order, summing to its balance. The projection's workers run, an account
 * never seen has an empty history, and invalid ids are refused as the other endpoints refuse them. About 15 s, most of it the two nodes' starts.
 */
class AccountHistoryClusterTest {

    private static final int ACCOUNTS = 12;

    private static final int DEPOSITS = 4;

    private final JsonHttp http = SampleCluster.HTTP;

    @TempDir
    Path data;

    private static String base(ShardingTestNode node) {
        return "http://127.0.0.1:" + node.port();
    }

    @Test
    void eachAcknowledgedDepositIsInTheHistoryOnceInOrderAndItSumsToTheBalance() {
        try (ShardingTestCluster cluster = ShardingTestCluster.of(SampleApplication.class)
                .applicationStore()
                .properties("sharding.store.embedded-path=" + data.resolve("sharding"))
                .start(2)) {
            List<ShardingTestNode> nodes = cluster.running();
            Map<String, List<Long>> acknowledged = new LinkedHashMap<>();
            Map<String, Long> balances = new LinkedHashMap<>();
            for (int i = 0; i < ACCOUNTS; i++) {
                String id = "hist-" + i;
                List<Long> amounts = new ArrayList<>();
                for (int j = 1; j <= DEPOSITS; j++) {
                    long amount = i * 10L + j;
                    String url = base(nodes.get((i + j) % 2)) + "/accounts/" + id + "/deposit";
                    String body = "{\"amount\": " + amount + "}";
                    JsonHttp.Answer a = j % 2 == 0 ? http.postJson(url, body, id + "-" + j) : http.postJson(url, body);
                    assertThat(a.status()).as("deposit into %s: %s", id, a).isEqualTo(200);
                    if (j % 2 == 0) {
                        // the same deposit again, through the other node: it applies once, so shows once
                        String other = base(nodes.get((i + j + 1) % 2)) + "/accounts/" + id + "/deposit";
                        JsonHttp.Answer again = http.postJson(other, body, id + "-" + j);
                        assertThat(again.text())
                                .as("a repeat answers the first answer")
                                .isEqualTo(a.text());
                    }
                    amounts.add(amount);
                    balances.put(id, a.body().path("balance").asLong());
                }
                acknowledged.put(id, amounts);
            }

            HistoryCheck.awaitHistories(
                    acknowledged,
                    balances,
                    id -> base(nodes.get(Math.floorMod(id.hashCode(), 2))),
                    Duration.ofSeconds(30));

            Awaitility.await("the projection's workers running")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> nodes.stream()
                                    .mapToInt(n -> n.node()
                                            .localRegion(AccountHistory.PROJECTION)
                                            .hostedShards())
                                    .sum()
                            == AccountHistory.SLICES);
            JsonHttp.Answer never = http.get(base(nodes.get(0)) + "/accounts/never-seen/history");
            assertThat(HistoryCheck.amounts("never-seen", never))
                    .as("the history of an account never seen")
                    .isEmpty();
            for (String invalid : List.of("a%20b", "a;b", "a:b", "", "L".repeat(201))) {
                JsonHttp.Answer a = http.get(base(nodes.get(1)) + "/accounts/" + invalid + "/history");
                assertThat(a.status()).as("history of '%s': %s", invalid, a).isEqualTo(400);
                assertThat(a.contentType()).startsWith("application/problem+json");
                assertThat(a.body().path("detail").asString()).contains("Invalid account id");
            }
        }
    }
}
