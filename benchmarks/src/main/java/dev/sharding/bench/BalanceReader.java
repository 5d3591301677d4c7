package dev.sharding.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads every account's balance after an H run, {@code GET /accounts/a-<i>} over a few keep-alive connections to each
 * node, each account read from the node {@code i % nodes} (so that the sample's nodes answer for accounts they host and
 * for accounts they do not). A balance that cannot be read after three tries is {@link BalanceCheck#UNREAD}.
 */
final class BalanceReader {

    private static final int CONNECTIONS_PER_NODE = 4;

    private BalanceReader() {}

    static long[] read(List<Integer> ports, int accounts) throws InterruptedException {
        long[] balances = new long[accounts];
        Arrays.fill(balances, BalanceCheck.UNREAD);
        int lanes = ports.size() * CONNECTIONS_PER_NODE;
        List<Thread> threads = new ArrayList<>();
        for (int lane = 0; lane < lanes; lane++) {
            int first = lane;
            Thread t = new Thread(
                    () -> {
                        try (HttpConnection c = new HttpConnection(
                                "127.0.0.1", ports.get(first % ports.size()), HttpLoad.TIMEOUT_MILLIS)) {
                            for (int i = first; i < accounts; i += lanes) {
                                balances[i] = balance(c, HttpLoad.MEASURED_PREFIX + i);
                            }
                        }
                    },
                    "h-check-" + lane);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return balances;
    }

    private static long balance(HttpConnection c, String id) {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                HttpConnection.ResponseReader.Response r = c.exchange(c.balance(id), true);
                if (r.status() == 200) {
                    return Workloads.JSON.readTree(r.text()).path("balance").asLong();
                }
            } catch (IOException | RuntimeException e) {
                // tried again
            }
        }
        return BalanceCheck.UNREAD;
    }
}
