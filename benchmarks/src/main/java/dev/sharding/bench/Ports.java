package dev.sharding.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free JGroups ports on the loopback address. The default TCP stack also listens at port + 100 (FD_SOCK2's
 * offset), so both must be free, and no two picks may overlap. The ports lie below the range the kernel takes
 * ephemeral ports from: one from that range, free when picked, can be taken by any outgoing connection before the node
 * that is to listen on it starts (a W10 run lost a node so, its HTTP port taken while 11 others started).
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
            int p = ThreadLocalRandom.current().nextInt(LOW, high());
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

    private static final int LOW = 20_000;

    /** {@return the end of the range picked from: the start of the ephemeral range, less FD_SOCK2's offset} */
    static int high() {
        int start = 32_768;
        try {
            // read by line: procfs reports a size of 0
            start = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .get(0)
                    .trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: the usual start
        }
        return Math.max(LOW + 2_000, Math.min(40_000, start) - FD_SOCK_OFFSET - 2);
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
