package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of the current run and its data directory (where its postmaster.pid is).
 *
 * @param postgres the server
 * @param data its data directory
 */
record PostgresServer(EmbeddedPostgres postgres, Path data) {

    /** {@return the postmaster and every process it has now (backends, WAL writer, ...); empty when unknown} */
    List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try {
            long pid = Long.parseLong(
                    Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
            ProcessHandle.of(pid).ifPresent(h -> {
                pids.add(h.pid());
                h.descendants().forEach(d -> pids.add(d.pid()));
            });
        } catch (IOException | RuntimeException e) {
            // not started, or gone
        }
        return pids;
    }

    /** {@return CPU seconds of the postmaster and of every process it has now} */
    double cpuSeconds() {
        double sum = 0;
        for (long pid : pids()) {
            sum += ProcessHandle.of(pid).map(MachineLoad::cpuSeconds).orElse(0.0);
        }
        return sum;
    }
}
