package dev.sharding.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free JGroups ports on the loopback address. The default TCP stack also listens at port + 100 (FD_SOCK2's
 * offset), so both must be free, and no two picks may overlap.
 */
final class Ports {

    static final int FD_SOCK_OFFSET = 100;

    private Ports() {}

    static List<Integer> pick(int count) {
        List<Integer> ports = new ArrayList<>();
        for (int attempt = 0; ports.size() < count; attempt++) {
            if (attempt > 1_000) {
                throw new IllegalStateException("No free loopback ports found");
            }
            int p = ThreadLocalRandom.current().nextInt(20_000, 40_000);
            boolean clash = ports.stream()
                    .anyMatch(q -> Math.abs(q - p) <= 1
                            || Math.abs(q + FD_SOCK_OFFSET - p) <= 1
                            || Math.abs(q - FD_SOCK_OFFSET - p) <= 1);
            if (!clash && free(p) && free(p + FD_SOCK_OFFSET)) {
                ports.add(p);
            }
        }
        return ports;
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
