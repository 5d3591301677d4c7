package dev.sharding.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.jspecify.annotations.Nullable;

/**
 * Summarises a flight recording of a node (made with {@code --jfr=DIR}): where the CPU samples
 * ({@code jdk.ExecutionSample}) are, as top frames (self) and as methods anywhere on the stack (total), per thread
 * group; and what the allocation samples ({@code jdk.ObjectAllocationSample}, weighted by bytes) allocate and where
 * (the first frame outside {@code java.*}/{@code jdk.*}), plus the monitor waits ({@code jdk.JavaMonitorEnter}). The
 * same events {@code jfr print --events jdk.ExecutionSample FILE} lists one by one.
 *
 * <p>With {@code --from} and {@code --to} only the events that started between the two instants count: an H
 * report gives each phase's (its {@code from} and {@code to}), so that the warm phase is profiled without the start
 * and the cold phase.
 *
 * <pre>java -jar benchmarks.jar --jfr-summary=FILE.jfr [--top=25] [--from=INSTANT --to=INSTANT]</pre>
 */
final class JfrSummary {

    private JfrSummary() {}

    static int run(Path file, int top, @Nullable Instant from, @Nullable Instant to, PrintStream out)
            throws IOException {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        Map<String, Long> threads = new HashMap<>();
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocBySite = new HashMap<>();
        Map<String, Long> monitors = new HashMap<>();
        long samples = 0;
        long allocated = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if ((from != null && e.getStartTime().isBefore(from))
                    || (to != null && e.getStartTime().isAfter(to))) {
                continue;
            }
            String type = e.getEventType().getName();
            RecordedStackTrace st = e.getStackTrace();
            if (type.equals("jdk.ExecutionSample")
                    && st != null
                    && !st.getFrames().isEmpty()) {
                samples++;
                List<RecordedFrame> frames = st.getFrames();
                self.merge(name(frames.get(0)), 1L, Long::sum);
                Set<String> seen = new HashSet<>();
                for (RecordedFrame f : frames) {
                    String n = method(f);
                    if (seen.add(n)) {
                        total.merge(n, 1L, Long::sum);
                    }
                }
                RecordedThread t = e.getThread("sampledThread");
                threads.merge(t == null ? "?" : group(t.getJavaName()), 1L, Long::sum);
            } else if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = e.getLong("weight");
                allocated += weight;
                RecordedClass c = e.getClass("objectClass");
                allocByClass.merge(c == null ? "?" : c.getName(), weight, Long::sum);
                allocBySite.merge(site(st), weight, Long::sum);
            } else if (type.equals("jdk.JavaMonitorEnter")) {
                RecordedClass c = e.getClass("monitorClass");
                monitors.merge(
                        (c == null ? "?" : c.getName()) + " at " + site(st),
                        e.getDuration().toNanos(),
                        Long::sum);
            }
        }
        out.printf(
                "%s%s: %d execution samples, %.1f MB allocation sampled%n",
                file,
                from == null && to == null
                        ? ""
                        : " from " + (from == null ? "the start" : from) + " to " + (to == null ? "the end" : to),
                samples,
                allocated / 1e6);
        print(out, "CPU samples by thread", threads, samples, top, "");
        print(out, "Top frames (self)", self, samples, top, "");
        print(
                out,
                "Methods on the stack (total, dev.sharding / org.jgroups / tools.jackson / org.springframework)",
                filter(total),
                samples,
                top,
                "");
        print(out, "Allocation by class (sampled bytes)", allocByClass, allocated, top, "MB");
        print(out, "Allocation by site (first frame outside java.*/jdk.*)", allocBySite, allocated, top, "MB");
        print(out, "Monitor waits (total time)", monitors, -1, top, "ms");
        return 0;
    }

    private static Map<String, Long> filter(Map<String, Long> total) {
        Map<String, Long> m = new HashMap<>();
        total.forEach((k, v) -> {
            if (k.startsWith("dev.sharding")
                    || k.startsWith("org.jgroups")
                    || k.startsWith("tools.jackson")
                    || k.startsWith("org.springframework")) {
                m.put(k, v);
            }
        });
        return m;
    }

    private static void print(PrintStream out, String title, Map<String, Long> counts, long all, int top, String unit) {
        out.println();
        out.println("== " + title);
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .forEach(e -> {
                    String v = switch (unit) {
                        case "MB" -> String.format("%9.1f MB", e.getValue() / 1e6);
                        case "ms" -> String.format("%9.1f ms", e.getValue() / 1e6);
                        default -> String.format("%9d", e.getValue());
                    };
                    String pct = all > 0 ? String.format(" %5.1f%%", 100.0 * e.getValue() / all) : "";
                    out.println(v + pct + "  " + e.getKey());
                });
    }

    private static String method(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        return m == null ? "?" : m.getType().getName() + "." + m.getName();
    }

    private static String name(RecordedFrame f) {
        return method(f) + (f.isJavaFrame() ? ":" + f.getLineNumber() : " (native)");
    }

    private static String site(RecordedStackTrace st) {
        if (st == null) {
            return "?";
        }
        for (RecordedFrame f : st.getFrames()) {
            String n = method(f);
            if (!n.startsWith("java.") && !n.startsWith("jdk.") && !n.startsWith("sun.")) {
                return name(f);
            }
        }
        return st.getFrames().isEmpty() ? "?" : name(st.getFrames().get(0));
    }

    /** Thread names without their numbers, so that pools add up. */
    private static String group(String thread) {
        return thread == null ? "?" : thread.replaceAll("[-#]?\\d+$", "").replaceAll("\\d+", "N");
    }
}
