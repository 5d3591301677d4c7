package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard in a real headless browser (Debian's Chromium, skipped when it is not installed): with two sample
 * nodes in this JVM it shows both members and their shard counts and paints every placed shard in its owner's
 * colour; when one node stops, the page changes to one member holding every shard; when the last stops, the page says
 * that its node does not answer.
 */
class DashboardBrowserTest {

    private static final Duration PAGE = Duration.ofSeconds(60);

    /** What the page shows: per member its name and shard count, and per owner the cells painted in its colour. */
    private static final String SHOWN = """
            JSON.stringify({
              state: document.body.dataset.state,
              members: Object.fromEntries([...document.querySelectorAll('#members .member')]
                  .map(m => [m.dataset.member, Number(m.dataset.shards)])),
              figures: [...document.querySelectorAll('#members .member .figures')].map(f => f.textContent),
              cells: [...document.querySelectorAll('.grid .cell')].reduce((owners, c) => {
                if (c.dataset.owner) { owners[c.dataset.owner] = (owners[c.dataset.owner] || 0) + 1; }
                return owners;
              }, {}),
              cellCount: document.querySelectorAll('.grid .cell').length,
              problem: document.getElementById('problem').hidden ? '' : document.getElementById('problem').textContent
            })""";

    private final SampleNodes nodes = new SampleNodes();

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(15));

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @Test
    void showsBothMembersWithTheirShardsThenTheChangeWhenOneStops() throws Exception {
        HeadlessChromium.assumeInstalled();
        ConfigurableApplicationContext n1 = nodes.start("n1");
        ConfigurableApplicationContext n2 = nodes.start("n2");
        awaitMembers(n1, 2);
        for (int i = 0; i < 40; i++) {
            JsonHttp.Answer a = http.postJson(url(n1, "/accounts/dash-" + i + "/deposit"), "{\"amount\": 1}");
            assertThat(a.status()).as("%s", a).isEqualTo(200);
        }
        Map<String, Integer> shards = shardsPerMember(n1);
        assertThat(shards)
                .as("both nodes host shards")
                .containsOnlyKeys("n1", "n2")
                .doesNotContainValue(0);

        try (HeadlessChromium browser = new HeadlessChromium(
                url(n1, "/sharding-dashboard/"), 1280, 900, Path.of("target/dashboard-browser/chromium.log"))) {
            AtomicReference<JsonNode> shown = new AtomicReference<>();
            Awaitility.await("both members and their shard counts shown, as the endpoint gives them")
                    .atMost(PAGE)
                    .pollInterval(Duration.ofMillis(200))
                    // a page still loading has no body yet: its script fails, and is asked again
                    .ignoreExceptionsInstanceOf(IllegalStateException.class)
                    .failFast(
                            "the page shows a problem",
                            () -> shown.get() != null
                                    && !shown.get().path("problem").asString().isEmpty())
                    .untilAsserted(() -> {
                        shown.set(JsonHttp.JSON.readTree(browser.evaluate(SHOWN)));
                        Map<String, Integer> expected = shardsPerMember(n1);
                        assertThat(members(shown.get())).isEqualTo(expected);
                        assertThat(counts(shown.get().path("cells")))
                                .as("cells per owner")
                                .isEqualTo(expected);
                        assertThat(shown.get().path("figures").toString())
                                .contains(expected.get("n1") + " shard")
                                .contains(expected.get("n2") + " shard");
                        assertThat(shown.get().path("cellCount").asInt())
                                .as("a cell for each of the type's shards, placed or not")
                                .isEqualTo(100);
                    });
            int total = shards.values().stream().mapToInt(Integer::intValue).sum();

            n2.close();

            Awaitility.await("one member shown, holding all " + total + " shards")
                    .atMost(PAGE)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        JsonNode page = JsonHttp.JSON.readTree(browser.evaluate(SHOWN));
                        assertThat(members(page)).isEqualTo(Map.of("n1", total));
                        assertThat(counts(page.path("cells"))).isEqualTo(Map.of("n1", total));
                        assertThat(page.path("figures").toString()).contains(total + " shards");
                    });

            n1.close();

            Awaitility.await("the page says its node does not answer")
                    .atMost(PAGE)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        JsonNode page = JsonHttp.JSON.readTree(browser.evaluate(SHOWN));
                        assertThat(page.path("state").asString()).isEqualTo("error");
                        assertThat(page.path("problem").asString()).contains("does not answer");
                    });
        }
    }

    private static void awaitMembers(ConfigurableApplicationContext node, int count) {
        Awaitility.await(count + " members, registered, the coordinator ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    ShardingNode n = node.getBean(ShardingNode.class);
                    return n.members().size() == count && n.isRegistered() && n.isCoordinatorReady();
                });
    }

    private static String url(ConfigurableApplicationContext node, String path) {
        return SampleNodes.url(node, path);
    }

    /** Shards per member over every entity type, as the node's endpoint gives them. */
    private Map<String, Integer> shardsPerMember(ConfigurableApplicationContext node) {
        JsonNode cluster = http.get(url(node, "/actuator/sharding")).body();
        Map<String, Integer> shards = new LinkedHashMap<>();
        cluster.path("members").forEach(m -> shards.put(m.path("name").asString(), 0));
        for (JsonNode regions : cluster.path("entityTypes")) {
            for (JsonNode region : regions) {
                shards.merge(
                        region.path("member").asString(),
                        region.path("shardCount").asInt(),
                        Integer::sum);
            }
        }
        return shards;
    }

    private static Map<String, Integer> members(JsonNode page) {
        return counts(page.path("members"));
    }

    private static Map<String, Integer> counts(JsonNode object) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        object.properties().forEach(e -> counts.put(e.getKey(), e.getValue().asInt()));
        return counts;
    }
}
