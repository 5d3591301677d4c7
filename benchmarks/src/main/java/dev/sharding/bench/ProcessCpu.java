package dev.sharding.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU seconds of processes read from {@code /proc/<pid>/stat} (user and system time, fields 14 and 15, in clock ticks
 * of 1/100 s), so that the H workloads can split a phase's CPU by process: each node, the load generator (this JVM),
 * the database server.
 */
final class ProcessCpu {

    private static final double CLOCK_TICKS = 100.0;

    private ProcessCpu() {}

    /** {@return CPU seconds the process used so far, or -1 when it is gone or /proc cannot be read} */
    static double seconds(long pid) {
        try {
            return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@return CPU seconds of the processes together; those that cannot be read count 0} */
    static double seconds(List<Long> pids) {
        double sum = 0;
        for (long pid : pids) {
            sum += Math.max(0, seconds(pid));
        }
        return sum;
    }

    /**
     * CPU seconds from a line of {@code /proc/<pid>/stat}. The command name, field 2, is in parentheses and may hold
     * spaces and parentheses itself, so the fields are counted from the last ')'.
     *
     * @param stat the line
     * @return utime + stime in seconds
     */
    static double parse(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // f[0] is field 3 (state): utime is field 14, stime field 15
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLOCK_TICKS;
    }

    /**
     * CPU seconds of a process's threads so far, added up by thread group: a thread's name as the kernel keeps it
     * ({@code /proc/<pid>/task/<tid>/comm}, at most 15 characters) with every run of digits made {@code #}, so that
     * {@code http-nio-8081-exec-3} and {@code http-nio-8082-exec-7} are both {@code http-nio-#-e}. Threads that ended
     * are missing: take readings of long-lived thread pools only.
     *
     * @param pid the process
     * @return seconds by group; empty when the process is gone or /proc cannot be read
     */
    static Map<String, Double> byThreadGroup(long pid) {
        Map<String, Double> groups = new TreeMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                try {
                    String comm = Files.readString(task.resolve("comm")).trim();
                    double seconds = parse(Files.readString(task.resolve("stat")));
                    groups.merge(comm.replaceAll("[0-9]+", "#"), seconds, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return groups;
    }
}
