package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The dashboard's files and settings over HTTP: served from the jar with a strict content security policy when
 * {@code sharding.dashboard.enabled=true} (as the sample sets it), absent (404) when it is off; its settings follow the
 * actuator's base path and the servlet context path, and say which property to set when the endpoint is not exposed.
 */
class DashboardPageTest {

    private final SampleNodes nodes = new SampleNodes();

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(15));

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @Test
    void servesThePageItsFilesAndItsSettingsFromTheJar() {
        ConfigurableApplicationContext node = nodes.start("page");

        JsonHttp.Answer bare = http.get(SampleNodes.url(node, "/sharding-dashboard"));
        assertThat(bare.status()).as("%s", bare).isEqualTo(302);

        JsonHttp.Answer page = http.get(SampleNodes.url(node, "/sharding-dashboard/"));
        assertThat(page.status()).as("%s", page).isEqualTo(200);
        assertThat(page.contentType()).startsWith("text/html");
        assertThat(page.text())
                .contains("<script src=\"dashboard.js\"", "id=\"members\"")
                .doesNotContain("http");

        for (String file : new String[] {"dashboard.js", "dashboard.css", "index.html"}) {
            JsonHttp.Answer a = http.get(SampleNodes.url(node, "/sharding-dashboard/" + file));
            assertThat(a.status()).as("%s: %s", file, a).isEqualTo(200);
        }
        assertThat(http.get(SampleNodes.url(node, "/sharding-dashboard/dashboard.js"))
                        .text())
                .as("the page only reads")
                .doesNotContain("POST", "DELETE", "innerHTML");

        JsonHttp.Answer settings = http.get(SampleNodes.url(node, "/sharding-dashboard/config.json"));
        assertThat(settings.body().get("endpoint").asString()).isEqualTo("/actuator/sharding");
        assertThat(settings.body().get("refreshMillis").asInt()).isEqualTo(1000);

        assertThat(http.get(SampleNodes.url(node, "/sharding-dashboard/../application.properties"))
                        .status())
                .isIn(400, 404);
        assertThat(http.get(SampleNodes.url(node, "/sharding-dashboard/ShardingDashboardServlet.class"))
                        .status())
                .isEqualTo(404);
        assertThat(http.post(SampleNodes.url(node, "/sharding-dashboard/"), "application/json", "{}")
                        .status())
                .isEqualTo(405);
    }

    @Test
    void absentWhenSwitchedOff() {
        ConfigurableApplicationContext node = nodes.start("off", "--sharding.dashboard.enabled=false");
        for (String path : new String[] {
            "/sharding-dashboard/", "/sharding-dashboard/dashboard.js", "/sharding-dashboard/config.json"
        }) {
            JsonHttp.Answer a = http.get(SampleNodes.url(node, path));
            assertThat(a.status()).as("%s: %s", path, a).isEqualTo(404);
        }
    }

    @Test
    void followsTheBasePathAndTheContextPath() {
        ConfigurableApplicationContext node = nodes.start(
                "paths",
                "--management.endpoints.web.base-path=/manage",
                "--server.servlet.context-path=/bank",
                "--sharding.dashboard.refresh-interval=2500ms");
        JsonHttp.Answer settings = http.get(SampleNodes.url(node, "/bank/sharding-dashboard/config.json"));
        assertThat(settings.body().get("endpoint").asString()).isEqualTo("/bank/manage/sharding");
        assertThat(settings.body().get("refreshMillis").asInt()).isEqualTo(2500);
        assertThat(http.get(SampleNodes.url(node, "/bank/manage/sharding")).status())
                .as("the endpoint is where the page is told it is")
                .isEqualTo(200);
    }

    @Test
    void saysWhichPropertyToSetWhenTheEndpointIsNotExposed() {
        ConfigurableApplicationContext node =
                nodes.start("hidden", "--management.endpoints.web.exposure.include=health");
        JsonHttp.Answer settings = http.get(SampleNodes.url(node, "/sharding-dashboard/config.json"));
        assertThat(settings.body().get("endpoint").isNull()).as("%s", settings).isTrue();
        assertThat(settings.body().get("problem").asString()).contains("management.endpoints.web.exposure.include");
    }

    @Test
    void aRefreshIntervalBelowTheSmallestStopsTheApplicationNamingTheProperty() {
        assertThatThrownBy(() -> nodes.start("fast", "--sharding.dashboard.refresh-interval=10ms"))
                .hasStackTraceContaining("sharding.dashboard.refresh-interval");
    }
}
