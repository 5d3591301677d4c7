package dev.sharding.bench;

import java.util.Map;

/** The name each workload's output line gives it, beside its id. */
final class WorkloadNames {

    private WorkloadNames() {}

    static Map<String, String> all() {
        return Map.ofEntries(
                Map.entry("W1", "local-tell"),
                Map.entry("W2", "remote-tell"),
                Map.entry("W3", "remote-ask-latency"),
                Map.entry("W4", "remote-ask-throughput"),
                Map.entry("W5", "activation"),
                Map.entry("W6", "rebalance"),
                Map.entry("W6-ASKS", "rebalance-under-asks"),
                Map.entry("W7", "failover"),
                Map.entry("D0", "deposit-plain-jdbc"),
                Map.entry("D2", "balance-reads"),
                Map.entry("D0-READS", "balance-reads-plain-jdbc"),
                Map.entry("D1", "deposit"),
                Map.entry("D3", "deposit-event-sourced"),
                Map.entry("W7-HANG", "failover-hang"),
                Map.entry("W8", "scale-out"),
                Map.entry("W9", "density"),
                Map.entry("W10", "sample-kill"),
                Map.entry("E1", "event-sourced-recovery"),
                Map.entry("H1", "http-deposit"),
                Map.entry("H0", "http-deposit-plain-spring"),
                Map.entry("H2-READS", "http-balance-reads"),
                Map.entry("H0-READS", "http-balance-reads-plain-spring"));
    }
}
