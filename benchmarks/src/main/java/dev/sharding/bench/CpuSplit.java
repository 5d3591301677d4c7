package dev.sharding.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import tools.jackson.databind.node.ObjectNode;

/**
 * The CPU of an H run split by process and phase: at each phase boundary the CPU seconds of every named process
 * (read from {@code /proc/<pid>/stat}) and of the whole machine are taken, and a phase's share is the difference of
 * its two readings. The machine's busy seconds not used by any of the named processes are {@code other_cpu_s}.
 */
final class CpuSplit {

    private final Map<String, Supplier<List<Long>>> processes;

    private final List<Map<String, Double>> readings = new ArrayList<>();

    private final List<Double> machine = new ArrayList<>();

    /** The processes whose CPU is also split by thread group (the nodes), by name. */
    private final Map<String, Supplier<List<Long>>> threaded = new LinkedHashMap<>();

    /** At each boundary: CPU seconds by thread group, added up over {@link #threaded}. */
    private final List<Map<String, Double>> threadReadings = new ArrayList<>();

    /** The wall-clock time of each boundary. */
    private final List<Instant> times = new ArrayList<>();

    /** @param processes by name, the process ids to add up (read again at each boundary: a server's children change) */
    CpuSplit(Map<String, Supplier<List<Long>>> processes) {
        this.processes = new LinkedHashMap<>(processes);
    }

    /**
     * {@return a split of the nodes' CPU, theirs also by thread group, of this process (the launcher, whose requests
     * are the load: {@code load_generator}) and of {@code more}}
     *
     * @param nodes the nodes, each under its name
     * @param more other processes by name, such as the database's
     */
    static CpuSplit ofNodes(List<NodeProcess> nodes, Map<String, Supplier<List<Long>>> more) {
        Map<String, Supplier<List<Long>>> processes = new LinkedHashMap<>();
        for (NodeProcess p : nodes) {
            processes.put(p.name(), () -> List.of(p.pid()));
        }
        processes.put("load_generator", () -> List.of(ProcessHandle.current().pid()));
        processes.putAll(more);
        return new CpuSplit(processes)
                .byThreadGroup(nodes.stream().map(NodeProcess::name).toList());
    }

    /**
     * Also splits the CPU of these processes, added up, by thread group ({@link ProcessCpu#byThreadGroup}).
     *
     * @param names names given to the constructor
     * @return this
     */
    CpuSplit byThreadGroup(List<String> names) {
        for (String name : names) {
            threaded.put(name, processes.get(name));
        }
        return this;
    }

    /** Takes the readings of one boundary. */
    void snapshot() {
        times.add(Instant.now());
        Map<String, Double> groups = new TreeMap<>();
        threaded.forEach((name, pids) -> {
            for (long pid : pids.get()) {
                ProcessCpu.byThreadGroup(pid).forEach((g, s) -> groups.merge(g, s, Double::sum));
            }
        });
        threadReadings.add(groups);
        Map<String, Double> r = new LinkedHashMap<>();
        processes.forEach((name, pids) -> r.put(name, ProcessCpu.seconds(pids.get())));
        readings.add(r);
        machine.add(MachineLoad.busySeconds());
    }

    /**
     * The split of the phase between boundaries {@code k} and {@code k + 1}.
     *
     * @param k the phase
     * @param requests requests answered in it
     * @param into where {@code cpu_s}, {@code cpu_ms_per_request}, {@code machine_busy_cpu_s} and {@code other_cpu_s}
     *     go
     */
    void putPhase(int k, long requests, ObjectNode into) {
        if (readings.size() <= k + 1) {
            return;
        }
        ObjectNode seconds = into.putObject("cpu_s");
        ObjectNode perRequest = into.putObject("cpu_ms_per_request");
        double total = 0;
        for (String name : processes.keySet()) {
            double s = readings.get(k + 1).get(name) - readings.get(k).get(name);
            total += s;
            seconds.put(name, round(s, 100));
            perRequest.put(name, requests == 0 ? 0 : round(1000 * s / requests, 1000));
        }
        seconds.put("total", round(total, 100));
        perRequest.put("total", requests == 0 ? 0 : round(1000 * total / requests, 1000));
        double busy = machine.get(k + 1) - machine.get(k);
        into.put("machine_busy_cpu_s", round(busy, 100));
        into.put("other_cpu_s", round(busy - total, 100));
        into.put("from", times.get(k).toString());
        into.put("to", times.get(k + 1).toString());
        if (!threaded.isEmpty()) {
            // the groups that took at least a hundredth of a millisecond per request, most first
            Map<String, Double> before = threadReadings.get(k);
            List<Map.Entry<String, Double>> used = new ArrayList<>();
            threadReadings.get(k + 1).forEach((g, s) -> {
                double d = s - before.getOrDefault(g, 0.0);
                if (requests > 0 && 1000 * d / requests >= 0.01) {
                    used.add(Map.entry(g, d));
                }
            });
            used.sort(Map.Entry.<String, Double>comparingByValue().reversed());
            ObjectNode groups = into.putObject("nodes_cpu_ms_per_request_by_thread");
            for (Map.Entry<String, Double> e : used) {
                groups.put(e.getKey(), round(1000 * e.getValue() / requests, 1000));
            }
        }
    }

    private static double round(double v, int scale) {
        return Math.round(v * scale) / (double) scale;
    }
}
