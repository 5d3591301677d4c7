package dev.sharding.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** W8's idle window: each node's CPU, JGroups traffic and heap while the settled cluster takes no load. */
final class ScaleIdle {

    private ScaleIdle() {}

    /**
     * The node's CPU in the window by thread group ({@link ProcessCpu#byThreadGroup}), in percent of a core, largest
     * first, groups of 0.05% or more.
     */
    static ObjectNode byThread(Map<String, Double> before, Map<String, Double> after, double windowSeconds) {
        ObjectNode o = Workloads.JSON.createObjectNode();
        after.entrySet().stream()
                .map(e -> Map.entry(
                        e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0.0)) / windowSeconds * 100))
                .filter(e -> e.getValue() >= 0.05)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> o.put(e.getKey(), round2(e.getValue())));
        return o;
    }

    /** Measures the idle window over the live nodes, named as in the result. */
    static ObjectNode measure(List<NodeProcess> nodes, Map<NodeProcess, String> names, int idleSeconds, Duration step)
            throws Exception {
        int k = nodes.size();
        double[] cpu0 = new double[k];
        long[] at0 = new long[k];
        JsonNode[] s0 = new JsonNode[k];
        List<Map<String, Double>> threads0 = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            NodeProcess p = nodes.get(i);
            p.send("IDLE-STATS");
            s0[i] = read(p.await("IDLE-STATS", step));
            threads0.add(ProcessCpu.byThreadGroup(p.pid()));
            cpu0[i] = p.cpuSeconds();
            at0[i] = System.nanoTime();
        }
        Thread.sleep(idleSeconds * 1000L); // the measured window itself
        ObjectNode idle = Workloads.JSON.createObjectNode();
        idle.put("window_s", idleSeconds);
        ObjectNode perNode = idle.putObject("per_node");
        double cpuMax = 0;
        double cpuSum = 0;
        double msgsSum = 0;
        double bytesSum = 0;
        double heapMax = 0;
        double heapGcMax = 0;
        boolean traffic = true;
        for (int i = 0; i < k; i++) {
            NodeProcess p = nodes.get(i);
            double cpu = p.cpuSeconds();
            long at = System.nanoTime();
            p.send("IDLE-STATS");
            JsonNode s1 = read(p.await("IDLE-STATS", step));
            double window = Workloads.seconds(at - at0[i]);
            ObjectNode one = perNode.putObject(names.get(p));
            double pct = (cpu - cpu0[i]) / window * 100;
            one.put("cpu_pct", round2(pct));
            one.set("cpu_pct_by_thread", byThread(threads0.get(i), ProcessCpu.byThreadGroup(p.pid()), window));
            cpuMax = Math.max(cpuMax, pct);
            cpuSum += pct;
            if (s1.has("msgs_sent")) {
                double msgs =
                        (s1.get("msgs_sent").asLong() - s0[i].get("msgs_sent").asLong()) / window;
                double bytes =
                        (s1.get("bytes_sent").asLong() - s0[i].get("bytes_sent").asLong()) / window;
                one.put("msgs_sent_per_s", round2(msgs));
                one.put("bytes_sent_per_s", Math.round(bytes));
                one.put(
                        "msgs_received_per_s",
                        round2((s1.get("msgs_received").asLong()
                                        - s0[i].get("msgs_received").asLong())
                                / window));
                one.put(
                        "bytes_received_per_s",
                        Math.round((s1.get("bytes_received").asLong()
                                        - s0[i].get("bytes_received").asLong())
                                / window));
                msgsSum += msgs;
                bytesSum += bytes;
            } else {
                traffic = false;
            }
            double heap = s1.get("heap_used").asLong() / 1048576.0;
            one.put("heap_used_mb", round2(heap));
            heapMax = Math.max(heapMax, heap);
        }
        for (NodeProcess p : nodes) {
            p.send("IDLE-STATS GC"); // all at once: each takes about a second of full collections
        }
        for (NodeProcess p : nodes) {
            double heap =
                    read(p.await("IDLE-STATS", step)).get("heap_used_after_gc").asLong() / 1048576.0;
            ((ObjectNode) perNode.get(names.get(p))).put("heap_after_gc_mb", round2(heap));
            heapGcMax = Math.max(heapGcMax, heap);
        }
        idle.put("cpu_pct_max", round2(cpuMax));
        idle.put("cpu_pct_mean", round2(cpuSum / k));
        if (traffic) {
            idle.put("msgs_sent_per_s_mean", round2(msgsSum / k));
            idle.put("bytes_sent_per_s_mean", Math.round(bytesSum / k));
        }
        idle.put("heap_used_mb_max", round2(heapMax));
        idle.put("heap_after_gc_mb_max", round2(heapGcMax));
        return idle;
    }

    private static ObjectNode read(String json) {
        return (ObjectNode) Workloads.JSON.readTree(json);
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
