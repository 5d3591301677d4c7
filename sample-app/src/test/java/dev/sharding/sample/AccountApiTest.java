package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sharding.boot.test.AutoConfigureShardingTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP contract of the sample on one node (in-JVM JGroups stack): deposits, balances, and every request that
 * must be refused with 400 without changing anything.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sharding.node-name=api-node")
@AutoConfigureShardingTest
class AccountApiTest {

    private static final AtomicInteger IDS = new AtomicInteger();

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @LocalServerPort
    private int port;

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    private static String newId() {
        return "acct-" + IDS.incrementAndGet();
    }

    private JsonNode deposit(String id, long amount) {
        JsonHttp.Answer a = http.postJson(url("/accounts/" + id + "/deposit"), "{\"amount\": " + amount + "}");
        assertThat(a.status()).as("deposit %d into %s: %s", amount, id, a).isEqualTo(200);
        return a.body();
    }

    private long balance(String id) {
        JsonHttp.Answer a = http.get(url("/accounts/" + id));
        assertThat(a.status()).as("balance of %s: %s", id, a).isEqualTo(200);
        return a.body().get("balance").longValue();
    }

    private static void assertProblem(JsonHttp.Answer a, int status) {
        assertThat(a.status()).as("%s", a).isEqualTo(status);
        assertThat(a.contentType()).as("%s", a).startsWith("application/problem+json");
        assertThat(a.body().get("status").intValue()).isEqualTo(status);
        assertThat(a.body().get("detail").asString()).isNotBlank();
    }

    @Test
    void aDepositWithAnIdempotencyKeyAppliesOncePerKeyAndRepeatsItsFirstAnswer() {
        String id = newId();
        String url = url("/accounts/" + id + "/deposit");
        JsonHttp.Answer first = http.postJson(url, "{\"amount\": 5}", "order-1");
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        assertThat(first.body().get("balance").longValue()).isEqualTo(5);
        JsonHttp.Answer again = http.postJson(url, "{\"amount\": 5}", "order-1");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text()).as("the same body").isEqualTo(first.text());
        JsonHttp.Answer reused = http.postJson(url, "{\"amount\": 50}", "order-1");
        assertProblem(reused, 422);
        assertThat(reused.body().get("detail").asString()).contains("Idempotency-Key order-1", "another deposit");
        assertThat(balance(id))
                .as("a key reused for another deposit applies nothing")
                .isEqualTo(5);
        assertThat(http.postJson(url, "{\"amount\": 5}", "order-2")
                        .body()
                        .get("balance")
                        .longValue())
                .isEqualTo(10);
        assertThat(deposit(id, 1).get("balance").longValue())
                .as("without the header, as before")
                .isEqualTo(11);
        assertThat(balance(id)).isEqualTo(11);
        // the key is per account: another account applies it on its own
        assertThat(http.postJson(url("/accounts/" + newId() + "/deposit"), "{\"amount\": 3}", "order-1")
                        .body()
                        .get("balance")
                        .longValue())
                .isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"with space", "tab\tkey", ""})
    void anInvalidIdempotencyKeyIs400AndChangesNothing(String key) {
        String id = newId();
        deposit(id, 2);
        assertProblem(http.postJson(url("/accounts/" + id + "/deposit"), "{\"amount\": 5}", key), 400);
        assertProblem(http.postJson(url("/accounts/" + id + "/deposit"), "{\"amount\": 5}", "k".repeat(256)), 400);
        assertThat(balance(id)).isEqualTo(2);
    }

    @Test
    void depositsAddUpAndAreReadBack() {
        String id = newId();
        JsonNode first = deposit(id, 5);
        assertThat(first.get("id").asString()).isEqualTo(id);
        assertThat(first.get("balance").longValue()).isEqualTo(5);
        assertThat(first.get("node").asString()).isEqualTo("api-node");
        assertThat(first.size()).as("fields of %s", first).isEqualTo(3);

        assertThat(deposit(id, 7).get("balance").longValue()).isEqualTo(12);

        JsonHttp.Answer read = http.get(url("/accounts/" + id));
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.contentType()).startsWith("application/json");
        assertThat(read.body().get("id").asString()).isEqualTo(id);
        assertThat(read.body().get("balance").longValue()).isEqualTo(12);
        assertThat(read.body().get("node").asString()).isEqualTo("api-node");
    }

    @Test
    void accountNeverSeenHasZeroBalance() {
        assertThat(balance(newId())).isZero();
    }

    @Test
    void largestAmountIsAccepted() {
        String id = newId();
        assertThat(deposit(id, Long.MAX_VALUE).get("balance").longValue()).isEqualTo(Long.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "{\"amount\": null}",
                "{\"amount\": 1.5}",
                "{\"amount\": 5.0}",
                "{\"amount\": 1e3}",
                "{\"amount\": \"5\"}",
                "{\"amount\": 0}",
                "{\"amount\": -3}",
                "{\"amount\": 9223372036854775808}",
                "{\"amount\": 100000000000000000000000}",
                "{\"amount\": -9223372036854775809}",
                "{\"amount\": true}",
                "{\"amount\": [5]}",
                "{\"amount\": {\"value\": 5}}",
                "{\"amont\": 5}",
                "{\"amount\": 5, \"amount\": 6}",
                "[{\"amount\": 5}]",
                "5",
                "\"5\"",
                "null",
                "amount=5",
                "not json",
                "{\"amount\": 5",
                "{amount: 5}",
                "{\"amount\": 5} {\"amount\": 6}",
                "",
                "   "
            })
    void invalidDepositIsRefusedAndChangesNothing(String body) {
        String id = newId();
        deposit(id, 10);

        assertProblem(http.postJson(url("/accounts/" + id + "/deposit"), body), 400);

        assertThat(balance(id)).isEqualTo(10);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data"})
    void depositNotSentAsJsonIsRefused(String contentType) {
        String id = newId();
        deposit(id, 10);

        assertProblem(http.post(url("/accounts/" + id + "/deposit"), contentType, "{\"amount\": 5}"), 400);

        assertThat(balance(id)).isEqualTo(10);
    }

    @Test
    void depositWithoutContentTypeIsReadAsJson() {
        String id = newId();
        JsonHttp.Answer a = http.post(url("/accounts/" + id + "/deposit"), null, "{\"amount\": 3}");
        assertThat(a.status()).as("%s", a).isEqualTo(200);
        assertThat(a.body().get("balance").longValue()).isEqualTo(3);
    }

    @Test
    void depositWithJsonCharsetIsAccepted() {
        String id = newId();
        JsonHttp.Answer a =
                http.post(url("/accounts/" + id + "/deposit"), "application/json; charset=utf-8", "{\"amount\": 4}");
        assertThat(a.status()).as("%s", a).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a%20b",
                "%C3%A4",
                "a+b",
                "a:b",
                "a@b",
                "a!b",
                "a~b",
                "a*b",
                "a%22b",
                "a%25b",
                "a'b",
                "a,b",
                "a=b",
                "a$b",
                "a%09b",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                        + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            })
    void invalidIdIsRefused(String encodedId) {
        assertProblem(http.get(url("/accounts/" + encodedId)), 400);
        assertProblem(http.postJson(url("/accounts/" + encodedId + "/deposit"), "{\"amount\": 5}"), 400);
        assertProblem(http.get(url("/accounts/" + encodedId + "/history")), 400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a;b", "a;b=1"})
    void emptyIdAndIdWithPathParametersAreRefused(String id) {
        assertProblem(http.get(url("/accounts/" + id)), 400);
        assertProblem(http.postJson(url("/accounts/" + id + "/deposit"), "{\"amount\": 5}"), 400);
        assertProblem(http.get(url("/accounts/" + id + "/history")), 400);
    }

    /** The history is a table of the store's database (AccountHistoryClusterTest): a store in memory has none. */
    @Test
    void aNodeWhoseStoreIsInMemoryKeepsNoHistory() {
        String id = newId();
        deposit(id, 5);
        JsonHttp.Answer history = http.get(url("/accounts/" + id + "/history"));
        assertProblem(history, 404);
        assertThat(history.body().get("detail").asString()).contains("sharding.store.type=memory");
    }

    /** Paths the web server itself refuses before the application sees them; the answer is still 400. */
    @ParameterizedTest
    @ValueSource(strings = {"a%2Fb", "a%5Cb", "a%00b", "%E4"})
    void malformedPathIsRefusedByTheServer(String encodedId) {
        assertThat(http.get(url("/accounts/" + encodedId)).status()).isEqualTo(400);
        assertThat(http.postJson(url("/accounts/" + encodedId + "/deposit"), "{\"amount\": 5}")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void idsOfEveryAllowedCharacterAndTheLongestIdAreAccepted() {
        String longest = "L".repeat(200);
        assertThat(deposit(longest, 1).get("id").asString()).isEqualTo(longest);
        String mixed = "Az09._-" + IDS.incrementAndGet();
        assertThat(deposit(mixed, 2).get("id").asString()).isEqualTo(mixed);
        assertThat(balance(mixed)).isEqualTo(2);
    }

    @Test
    void depositThatWouldOverflowTheBalanceIsRefusedAndChangesNothing() {
        String id = newId();
        deposit(id, Long.MAX_VALUE - 1);

        assertProblem(http.postJson(url("/accounts/" + id + "/deposit"), "{\"amount\": 2}"), 422);

        assertThat(balance(id)).isEqualTo(Long.MAX_VALUE - 1);
    }

    @Test
    void healthAndShardingEndpointsAreExposed() {
        await("health UP")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    JsonHttp.Answer health = http.get(url("/actuator/health"));
                    assertThat(health.status()).as("%s", health).isEqualTo(200);
                    assertThat(health.body().get("status").asString()).isEqualTo("UP");
                });

        JsonHttp.Answer sharding = http.get(url("/actuator/sharding"));
        assertThat(sharding.status()).as("%s", sharding).isEqualTo(200);
        assertThat(sharding.text()).contains("account").contains("api-node");

        String id = newId();
        deposit(id, 1);
        JsonHttp.Answer type = http.get(url("/actuator/sharding/account"));
        assertThat(type.status()).as("%s", type).isEqualTo(200);
        assertThat(type.text()).contains(id);
    }
}
