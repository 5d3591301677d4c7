package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class KillTimelineTest {

    private static final Instant KILL = Instant.parse("2026-11-27T12:00:10.250Z");

    private static final Instant END = Instant.parse("2026-11-27T12:00:20Z");

    private static String line(String time, String text) {
        return "2026-11-27T12:00:" + time + "Z  INFO 4242 --- [sample-app] [worker] d.s.i.n.Thing : " + text;
    }

    @Test
    void readsTheTimestampOfSpringBootsDefaultFormatAndNothingElse() {
        assertThat(KillTimeline.timestamp(line("11.500", "x"))).isEqualTo(Instant.parse("2026-11-27T12:00:11.500Z"));
        assertThat(KillTimeline.timestamp("2026-11-27T13:00:11.500+01:00  INFO x"))
                .isEqualTo(Instant.parse("2026-11-27T12:00:11.500Z"));
        assertThat(KillTimeline.timestamp("\tat dev.sharding.Foo.bar(Foo.java:1)"))
                .isNull();
        assertThat(KillTimeline.timestamp("/usr/bin/java -Xmx256m -jar sample-app.jar"))
                .isNull();
        assertThat(KillTimeline.timestamp("")).isNull();
        assertThat(KillTimeline.timestamp("2026 was a year")).isNull();
    }

    @Test
    void takesEachMarksFirstLineAtOrAfterTheKill() {
        List<String> log = List.of(
                line("05.000", "View on n2: [n1, n2] (left: [], joined: [n2])"),
                line("10.250", "View on n2: [n2, n3] (left: [n1], joined: [])"),
                "\tat a stack trace line (left: of no time",
                line("11.000", "View on n2: [n2] (left: [n3], joined: [])"),
                line("12.500", "Node n2 holds a lease again; checking its shards against the store"),
                line("13.000", "Node n2 holds a lease again and serves what it is allocated afresh"),
                line("20.001", "Coordinator activated on n2; asking 1 members for their shards"));

        Map<String, Double> firsts = KillTimeline.firsts(KILL, END, log);

        assertThat(firsts).containsExactly(Map.entry("view_s", 0.0), Map.entry("lease_back_s", 2.25));
    }

    @Test
    void givesEarliestAndLatestOverTheSurvivorsAndNullForMarksNoneLogged() {
        Map<String, List<String>> logs = Map.of(
                "n2",
                        List.of(
                                line("11.250", "View on n2: [n2, n3] (left: [n1], joined: [])"),
                                line("12.250", "Coordinator activated on n2; asking 2 members for their shards")),
                "n3",
                        List.of(
                                line("11.750", "View on n3: [n2, n3] (left: [n1], joined: [])"),
                                line("12.000", "Node n3 pauses its entities: its lease ran out (coordinator n1)")));

        ObjectNode t = KillTimeline.fromLines(KILL, END, logs);

        assertThat(t.get("view_s").get("earliest").asDouble()).isEqualTo(1.0);
        assertThat(t.get("view_s").get("latest").asDouble()).isEqualTo(1.5);
        assertThat(t.get("view_s").get("nodes").asInt()).isEqualTo(2);
        assertThat(t.get("coordinator_activated_s").get("nodes").asInt()).isEqualTo(1);
        assertThat(t.get("lease_lapsed_s").get("earliest").asDouble()).isEqualTo(1.75);
        assertThat(t.get("shard_check_retried_s").isNull()).isTrue();
        assertThat(t.propertyNames()).containsExactlyElementsOf(KillTimeline.MARKS.keySet());
    }
}
