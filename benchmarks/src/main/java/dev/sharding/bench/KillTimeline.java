package dev.sharding.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * W10's timeline: in the survivors' logs, when the lines that mark the steps of a failover first came after the kill
 * (and before the reads ended, so that the nodes' own shutdown is left out), as seconds from the kill, earliest and
 * latest over the survivors that logged them. The time of a line is its own
 * timestamp (Spring Boot's default log format starts each line with an ISO-8601 date and time with its offset).
 */
final class KillTimeline {

    /** What each step's first line contains, in the order a failover usually takes them. */
    static final Map<String, String> MARKS = marks();

    private static Map<String, String> marks() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("h2_lock_removed_s", "is gone; removed the lock file");
        m.put("h2_gave_up_waiting_s", "opening it without waiting any longer");
        m.put("h2_served_here_s", "this node serves it to the others");
        m.put("h2_served_by_other_s", "The embedded H2 database is served by another node now");
        m.put("view_s", " (left: "); // "View on n2: [...] (left: [...], joined: [])"
        m.put("coordinator_activated_s", "Coordinator activated on");
        m.put("coordinator_confirmed_s", "is confirmed by a winning set of members");
        m.put("coordinator_ready_s", " is ready: "); // "Coordinator on n6 is ready: 4 members, 68 shards allocated"
        m.put("registered_s", "registered with coordinator");
        m.put("lease_lapsed_s", "its lease ran out");
        m.put("lease_back_s", "holds a lease again");
        m.put("shard_check_retried_s", "Cannot check the shards");
        m.put("shards_dropped_s", "; dropping them");
        m.put("epoch_retried_s", "Cannot take a new epoch");
        m.put("projection_worker_started_s", "Started worker");
        m.put("thread_held_s", "by one piece of work"); // a control or transport thread held long: CPU starvation
        m.put("coordinator_lease_failed_s", "Cannot renew the coordinator lease");
        m.put("coordinator_lease_back_s", "holds the store's coordinator lease again");
        return m;
    }

    private KillTimeline() {}

    /**
     * The timeline of the survivors' logs.
     *
     * @param killedAt when the nodes were killed
     * @param until when the reads ended: later lines are left out
     * @param logs per survivor, its log
     * @return per mark that some survivor logged, {@code earliest} and {@code latest} seconds after the kill and
     *     {@code nodes} (how many logged it); null for the marks none logged
     */
    static ObjectNode of(Instant killedAt, Instant until, Map<String, Path> logs) throws IOException {
        Map<String, List<String>> lines = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : logs.entrySet()) {
            lines.put(e.getKey(), Files.readAllLines(e.getValue(), StandardCharsets.UTF_8));
        }
        return fromLines(killedAt, until, lines);
    }

    /** {@link #of} on lines already read. */
    static ObjectNode fromLines(Instant killedAt, Instant until, Map<String, List<String>> lines) {
        Map<String, List<Double>> seen = new LinkedHashMap<>();
        MARKS.keySet().forEach(k -> seen.put(k, new ArrayList<>()));
        for (List<String> node : lines.values()) {
            firsts(killedAt, until, node).forEach((k, s) -> seen.get(k).add(s));
        }
        ObjectNode t = Workloads.JSON.createObjectNode();
        seen.forEach((k, s) -> {
            if (s.isEmpty()) {
                t.putNull(k);
            } else {
                ObjectNode v = t.putObject(k);
                v.put("earliest", s.stream().mapToDouble(d -> d).min().orElseThrow());
                v.put("latest", s.stream().mapToDouble(d -> d).max().orElseThrow());
                v.put("nodes", s.size());
            }
        });
        return t;
    }

    /** Per mark, the seconds from the kill to its first line from the kill to {@code until} in one node's log. */
    static Map<String, Double> firsts(Instant killedAt, Instant until, List<String> lines) {
        Instant from = killedAt.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Map<String, Double> firsts = new LinkedHashMap<>();
        for (String line : lines) {
            Instant at = timestamp(line);
            if (at == null || at.isBefore(from) || at.isAfter(until)) {
                continue;
            }
            for (Map.Entry<String, String> m : MARKS.entrySet()) {
                if (!firsts.containsKey(m.getKey()) && line.contains(m.getValue())) {
                    firsts.put(
                            m.getKey(),
                            Workloads.round3(Duration.between(killedAt, at).toNanos() / 1e9));
                }
            }
        }
        return firsts;
    }

    /** {@return the time a log line starts with, or null if it starts with none (a stack trace, the command)} */
    static @Nullable Instant timestamp(String line) {
        int end = line.indexOf(' ');
        if (end < 19 || !Character.isDigit(line.charAt(0))) {
            return null;
        }
        try {
            return OffsetDateTime.parse(line.substring(0, end)).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
