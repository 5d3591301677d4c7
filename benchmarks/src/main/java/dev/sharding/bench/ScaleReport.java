package dev.sharding.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What W8's JSON line says: its notes, its headline figures, and how they are taken from the steps' results. */
final class ScaleReport {

    private ScaleReport() {}

    static final String NOTES = "N = nodes; sharding.node-name n01, n02, ... set per node; with postgresql also"
            + " spring.datasource.url/username/password and sharding.store.initialize-schema=always; node JVMs n01 (oldest: coordinator), n02 (measuring node: every ask and"
            + " timing) and the others started two at a time; before each step n02 waits until its view has lasted"
            + " split-brain.stable-after, no handoff is under way and the shards per member stayed the same for 3 s; entity type tally (durable EntityState: total and"
            + " count, in the store of the line's store field: h2 = the starter's default embedded H2 file database,"
            + " AUTO_SERVER, served by the node that opened it first; postgresql = a server started for the run) with sharding.entities.tally"
            + ".number-of-shards set per run, every node hosting; every Add is an ask with a message id (retries apply"
            + " once); seeding: one acknowledged Add per entity; idle: after seeding, CPU (utime+stime) and"
            + " JGroups transport messages/bytes (TP message stats, turned on) per node over the window, heap used at"
            + " its end and after full GCs; join: node N+1 held back then told to join, fair share = ceil(allocated shards /"
            + " (N+1)) - 1 shards on it (cluster state polled every 100 ms), then every entity answered a Get (1 s"
            + " timeout); kill3 (N >= 6, of the N+1 nodes): SIGKILL by n02 of the coordinator and the two youngest"
            + " other nodes at once, then nodes join until there are N (not timed); kill1: SIGKILL by n02 of the"
            + " youngest node neither coordinator nor n02; leave3 (N >= 4): nodes join until there are N (not"
            + " timed), then the three members other than n02 with the most shards close their Spring context at"
            + " once (graceful handoff);"
            + " after each: Get asks (500 ms timeout, 2000 in flight, silent ones asked again) until every entity"
            + " answered (the step's seconds), then, not timed, one acknowledged Add per entity and a Get of every"
            + " entity: *_lost = acknowledged adds missing from the counts;"
            + " coordinator_rebuild_s = new coordinator's log lines 'Coordinator activated' to 'is ready' as read by"
            + " the launcher; rebalance defaults (interval 10 s, absolute-limit 20, relative-limit 0.1)";

    static final List<String> FIGURES = List.of(
            "join_fair_share_s",
            "join_all_answered_s",
            "kill1_s",
            "kill1_lost",
            "kill3_s",
            "kill3_lost",
            "coordinator_rebuild_s",
            "leave3_s",
            "leave3_lost",
            "idle_cpu_pct_max",
            "idle_cpu_pct_mean",
            "idle_msgs_sent_per_s_mean",
            "idle_bytes_sent_per_s_mean",
            "heap_used_mb_max",
            "heap_after_gc_mb_max");

    /** Copies the headline figures of the steps to the top of the result. */
    static void figures(ObjectNode r) {
        JsonNode idle = r.path("idle");
        copy(r, "join_fair_share_s", r.path("join").path("seconds_to_fair_share"));
        copy(r, "join_all_answered_s", r.path("join").path("seconds_to_all_answered"));
        copy(r, "kill1_s", r.path("kill1").path("seconds"));
        copy(r, "kill1_lost", r.path("kill1").path("acknowledged_lost"));
        copy(r, "kill3_s", r.path("kill3").path("seconds"));
        copy(r, "kill3_lost", r.path("kill3").path("acknowledged_lost"));
        copy(r, "coordinator_rebuild_s", r.path("kill3").path("coordinator_rebuild_s"));
        copy(r, "leave3_s", r.path("leave3").path("seconds"));
        copy(r, "leave3_lost", r.path("leave3").path("acknowledged_lost"));
        copy(r, "idle_cpu_pct_max", idle.path("cpu_pct_max"));
        copy(r, "idle_cpu_pct_mean", idle.path("cpu_pct_mean"));
        copy(r, "idle_msgs_sent_per_s_mean", idle.path("msgs_sent_per_s_mean"));
        copy(r, "idle_bytes_sent_per_s_mean", idle.path("bytes_sent_per_s_mean"));
        copy(r, "heap_used_mb_max", idle.path("heap_used_mb_max"));
        copy(r, "heap_after_gc_mb_max", idle.path("heap_after_gc_mb_max"));
        List<String> errors = new ArrayList<>();
        for (String step : Set.of("join", "kill1", "kill3", "leave3")) {
            if (r.path(step).has("error")) {
                errors.add(step + ": " + r.path(step).get("error").asString());
            }
        }
        if (!errors.isEmpty()) {
            r.put("error", String.join("; ", errors));
        }
    }

    private static void copy(ObjectNode r, String key, JsonNode value) {
        r.set(key, value.isMissingNode() ? Workloads.JSON.getNodeFactory().nullNode() : value);
    }
}
