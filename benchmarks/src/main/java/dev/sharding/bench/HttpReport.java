package dev.sharding.bench;

import java.util.List;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.node.ObjectNode;

/** The figures of an H run: per phase throughput, latency percentiles and statuses; the headline figures. */
final class HttpReport {

    private HttpReport() {}

    /** The headline figures of a workload: throughput, p50 and p99 of each phase. */
    static List<String> figures(String w) {
        String rate = w.endsWith("-READS") ? "requests_per_s" : "deposits_per_s";
        return List.of(
                "warm_" + rate,
                "warm_p50_us",
                "warm_p99_us",
                "warming_" + rate,
                "warming_p50_us",
                "warming_p99_us",
                "cold_" + rate,
                "cold_p50_us",
                "cold_p99_us",
                "warm_cpu_ms_per_request");
    }

    /**
     * One phase's figures.
     *
     * @param t what the connections counted in it
     * @param seconds its length
     * @param reads whether the mix has reads (then deposits and reads are also reported apart)
     * @return the figures
     */
    static ObjectNode phase(HttpLoad.PhaseTally t, double seconds, boolean reads) {
        ObjectNode p = Workloads.JSON.createObjectNode();
        long deposits = t.deposits.getTotalCount();
        long readCount = t.reads.getTotalCount();
        p.put("requests_per_s", Math.round((deposits + readCount) / seconds));
        p.put("deposits_per_s", Math.round(deposits / seconds));
        if (reads) {
            p.put("reads_per_s", Math.round(readCount / seconds));
        }
        Histogram all = t.deposits.copy();
        all.add(t.reads);
        putLatency(p, "", all);
        if (reads) {
            putLatency(p, "deposit_", t.deposits);
            putLatency(p, "read_", t.reads);
        }
        p.put("requests", deposits + readCount);
        p.put("ok", t.ok);
        p.put("status_4xx", t.clientErrors);
        p.put("status_5xx", t.serverErrors);
        p.put("io_errors", t.ioErrors);
        return p;
    }

    /** Puts p50, p99, p99.9 and max of a histogram of microseconds, each name after {@code prefix}. */
    static void putLatency(ObjectNode into, String prefix, Histogram h) {
        if (h.getTotalCount() == 0) {
            into.putNull(prefix + "p50_us");
            into.putNull(prefix + "p99_us");
            return;
        }
        into.put(prefix + "p50_us", h.getValueAtPercentile(50.0));
        into.put(prefix + "p99_us", h.getValueAtPercentile(99.0));
        if (prefix.isEmpty()) {
            into.put("p999_us", h.getValueAtPercentile(99.9));
            into.put("max_us", h.getMaxValue());
        }
    }
}
