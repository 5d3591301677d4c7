package dev.sharding.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the machine is, from {@code /proc}: the load average, and the busy CPU seconds of all cores, so that a
 * run can say how much CPU other processes took while it measured. Gives -1 (or "") where {@code /proc} is missing.
 */
final class MachineLoad {

    private static final double CLOCK_TICKS = 100.0;

    private MachineLoad() {}

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "";
        }
    }

    /** Busy CPU seconds of the whole machine since boot (user, nice, system, irq, softirq, steal). */
    static double busySeconds() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    long busy = 0;
                    for (int i = 1; i <= 8; i++) {
                        if (i != 4 && i != 5) {
                            busy += Long.parseLong(f[i]);
                        }
                    }
                    return busy / CLOCK_TICKS;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }

    /** CPU seconds a process used so far, or 0 when unknown. */
    static double cpuSeconds(ProcessHandle process) {
        return process.info().totalCpuDuration().map(d -> d.toMillis() / 1000.0).orElse(0.0);
    }
}
