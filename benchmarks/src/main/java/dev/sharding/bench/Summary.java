package dev.sharding.bench;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The line of a workload run several times: each figure as the median of the runs that have it, with its minimum,
 * maximum and every run's value, plus how many runs there were and how many succeeded.
 */
final class Summary {

    private Summary() {}

    static ObjectNode of(String w, List<ObjectNode> runs) {
        ObjectNode first = runs.get(0);
        ObjectNode line = Workloads.JSON.createObjectNode();
        line.set("workload", first.get("workload"));
        line.set("name", first.get("name"));
        line.set("system", first.get("system"));
        line.put("runs", runs.size());
        line.put("ok_runs", runs.stream().filter(r -> !r.has("error")).count());
        for (String f : Scenarios.FIGURES.get(Scenarios.DEPOSITS.contains(w) ? "D1" : w)) {
            List<Double> values = new ArrayList<>();
            ArrayNode all = Workloads.JSON.createArrayNode();
            for (ObjectNode r : runs) {
                JsonNode v = r.get(f);
                all.add(v == null ? Workloads.JSON.getNodeFactory().nullNode() : v);
                if (v != null && v.isNumber()) {
                    values.add(v.asDouble());
                }
            }
            values.sort(null);
            if (values.isEmpty()) {
                line.putNull(f);
            } else {
                int m = values.size();
                double median = m % 2 == 1 ? values.get(m / 2) : (values.get(m / 2 - 1) + values.get(m / 2)) / 2;
                line.put(f, median);
                line.put(f + "_min", values.get(0));
                line.put(f + "_max", values.get(m - 1));
            }
            line.set(f + "_runs", all);
        }
        for (String k : List.of("n", "nodes", "heap", "notes", "jvm_flags", "java", "store", "lost")) {
            if (k.equals("lost") && first.has(k)) {
                // D1: the sum over the runs, so that one run's loss shows in the summary line
                line.put(k, runs.stream().mapToLong(r -> r.path(k).asLong()).sum());
            } else if (first.has(k) || !List.of("store", "lost").contains(k)) {
                line.set(k, first.get(k));
            }
        }
        ArrayNode other = Workloads.JSON.createArrayNode();
        ArrayNode errors = Workloads.JSON.createArrayNode();
        for (ObjectNode r : runs) {
            JsonNode m = r.get("machine");
            other.add(m == null ? Workloads.JSON.getNodeFactory().nullNode() : m.get("other_cpu_s"));
            if (r.has("error")) {
                errors.add("run " + r.get("run") + ": " + r.get("error").asString());
            }
        }
        line.set("other_cpu_s_runs", other);
        if (!errors.isEmpty()) {
            line.set("errors", errors);
        }
        return line;
    }
}
