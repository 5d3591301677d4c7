package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Makes the documentation's picture of the dashboard: a cluster of three sample nodes, the last two joining one that
 * holds every shard, caught while rebalances move shards to them (with the colour fades stopped, so that each cell
 * shows its owner's colour). Runs only when asked, with the file to write:
 * {@code -Ddashboard.screenshot=../docs/images/dashboard.png}.
 */
@EnabledIfSystemProperty(named = "dashboard.screenshot", matches = ".+")
class DashboardScreenshotTest {

    private static final int WIDTH = 1280;

    private final SampleNodes nodes = new SampleNodes();

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(15));

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @Test
    void threeNodesWhileShardsMove() throws Exception {
        HeadlessChromium.assumeInstalled();
        String interval = "--sharding.rebalance-interval=2s";
        ConfigurableApplicationContext n1 = nodes.start("node-1", interval);
        for (int i = 0; i < 150; i++) {
            JsonHttp.Answer a =
                    http.postJson(SampleNodes.url(n1, "/accounts/acct-" + i + "/deposit"), "{\"amount\": 10}");
            assertThat(a.status()).as("%s", a).isEqualTo(200);
        }
        nodes.start("node-2", interval);
        nodes.start("node-3", interval);
        Awaitility.await("three members")
                .atMost(Duration.ofSeconds(60))
                .until(() -> n1.getBean(ShardingNode.class).members().size() == 3);
        try (HeadlessChromium browser = new HeadlessChromium(
                SampleNodes.url(n1, "/sharding-dashboard/"),
                WIDTH,
                900,
                Path.of("target/dashboard-screenshot/chromium.log"))) {
            Awaitility.await("three members shown, shards just moved, two rebalances listed")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> browser.evaluate("String(document.querySelectorAll('#members .member').length === 3"
                                    + " && document.querySelectorAll('.cell.moved').length >= 4"
                                    + " && document.querySelectorAll('#rebalances tbody tr').length >= 2"
                                    + " && [...document.querySelectorAll('#members .member')]"
                                    + ".every(m => Number(m.dataset.shards) > 10))")
                            .equals("true"));
            // the picture shows each cell in its final colour, not halfway through its fade
            browser.evaluate("document.querySelectorAll('.cell').forEach(c => {"
                    + " c.style.transition = 'none'; c.style.animation = 'none'; }); 'still'");
            Path png = Path.of(System.getProperty("dashboard.screenshot"));
            browser.screenshot(png, WIDTH);
            assertThat(png).isNotEmptyFile();
        }
    }
}
