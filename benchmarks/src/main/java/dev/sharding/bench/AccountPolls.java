package dev.sharding.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W10's requests to the sample app, with the JDK's HTTP client: one deposit to each account, then reads of every
 * account until each answers its balance. {@code concurrency} threads each take the next account and ask for it
 * until it answers right (or the deadline passes), with a short timeout per request and a short pause after a failure.
 */
final class AccountPolls {

    /** The deposits' concurrency. */
    static final int DEPOSITORS = 64;

    private final int concurrency;

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

    /** The pause after a failed request or a wrong balance before the next try. */
    static final long RETRY_PAUSE_MILLIS = 100;

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** @param concurrency the reads in flight at once */
    AccountPolls(int concurrency) {
        this.concurrency = concurrency;
    }

    /** What the reads found. */
    record Outcome(
            long[] firstGoodNanos,
            long[] firstAskNanos,
            long requests,
            long timeouts,
            long otherStatus,
            long ioErrors,
            long wrongAnswers) {

        /** {@return seconds from each account's first read to its first right answer, sorted; the lost left out} */
        double[] sortedSecondsFromFirstRead() {
            List<Double> s = new ArrayList<>();
            for (int i = 0; i < firstGoodNanos.length; i++) {
                if (firstGoodNanos[i] >= 0) {
                    s.add((firstGoodNanos[i] - firstAskNanos[i]) / 1e9);
                }
            }
            return s.stream().mapToDouble(d -> d).sorted().toArray();
        }

        /** {@return the accounts that never answered their balance} */
        int lost() {
            return (int) Arrays.stream(firstGoodNanos).filter(t -> t < 0).count();
        }

        /** {@return seconds from {@code from} to each good answer, sorted; the lost left out} */
        double[] sortedSeconds(long from) {
            return Arrays.stream(firstGoodNanos)
                    .filter(t -> t >= 0)
                    .mapToDouble(t -> (t - from) / 1e9)
                    .sorted()
                    .toArray();
        }
    }

    /** {@return the value at percentile {@code p} (0-100) of sorted values, nearest rank; null if there are none} */
    static Double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return null;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return Workloads.round3(sorted[Math.max(0, Math.min(sorted.length, rank) - 1)]);
    }

    /**
     * One deposit of {@code i % 1000 + 1} to each account {@code a-i}, through node {@code i % nodes}, with an
     * idempotency key, so that a try again after a failure applies it once.
     *
     * @return the balance each account must have
     */
    long[] deposit(List<Integer> ports, int accounts, String key, Duration timeout) throws InterruptedException {
        long[] expected = new long[accounts];
        long deadline = System.nanoTime() + timeout.toNanos();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        run("w10-deposit", DEPOSITORS, () -> {
            for (int i = next.getAndIncrement(); i < accounts; i = next.getAndIncrement()) {
                expected[i] = i % 1000 + 1;
                String body = "{\"amount\":" + expected[i] + "}";
                boolean done = false;
                for (int attempt = 0; !done && System.nanoTime() < deadline; attempt++) {
                    HttpRequest r = request(ports.get((i + attempt) % ports.size()), "/accounts/" + id(i) + "/deposit")
                            .header("Content-Type", "application/json")
                            .header("Idempotency-Key", key + "-" + i)
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build();
                    done = send(r) >= 0 || pause();
                }
                if (!done) {
                    failed.incrementAndGet();
                }
            }
        });
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " deposits never acknowledged within " + timeout);
        }
        return expected;
    }

    /** Reads every account through the nodes at {@code ports} until it answers {@code expected}, or the deadline. */
    Outcome poll(List<Integer> ports, long[] expected, Duration timeout) throws InterruptedException {
        long[] first = new long[expected.length];
        Arrays.fill(first, -1);
        long deadline = System.nanoTime() + timeout.toNanos();
        AtomicInteger next = new AtomicInteger();
        AtomicLong requests = new AtomicLong();
        long[] asked = new long[expected.length];
        AtomicLong timeouts = new AtomicLong();
        AtomicLong otherStatus = new AtomicLong();
        AtomicLong ioErrors = new AtomicLong();
        AtomicLong wrong = new AtomicLong();
        run("w10-poll", concurrency, () -> {
            for (int i = next.getAndIncrement(); i < expected.length; i = next.getAndIncrement()) {
                asked[i] = System.nanoTime();
                for (int attempt = 0; first[i] < 0 && System.nanoTime() < deadline; attempt++) {
                    int port = ports.get((i + attempt) % ports.size());
                    long balance =
                            send(request(port, "/accounts/" + id(i)).GET().build());
                    requests.incrementAndGet();
                    if (balance == expected[i]) {
                        first[i] = System.nanoTime();
                    } else {
                        (balance == TIMEOUT
                                        ? timeouts
                                        : balance == IO_ERROR ? ioErrors : balance < 0 ? otherStatus : wrong)
                                .incrementAndGet();
                        pause();
                    }
                }
            }
        });
        return new Outcome(
                first, asked, requests.get(), timeouts.get(), otherStatus.get(), ioErrors.get(), wrong.get());
    }

    static String id(int i) {
        return DepositWorkload.id(i);
    }

    private static HttpRequest.Builder request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(REQUEST_TIMEOUT);
    }

    private static final long TIMEOUT = -2;

    private static final long IO_ERROR = -3;

    /** {@return the balance a 200 answer gives, -1 for another answer, {@link #TIMEOUT} or {@link #IO_ERROR}} */
    private long send(HttpRequest r) {
        try {
            HttpResponse<String> a = client.send(r, HttpResponse.BodyHandlers.ofString());
            return a.statusCode() == 200
                    ? Workloads.JSON.readTree(a.body()).path("balance").asLong(-1)
                    : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (java.net.http.HttpTimeoutException e) {
            return TIMEOUT;
        } catch (java.io.IOException | RuntimeException e) {
            return IO_ERROR;
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(RETRY_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private static void run(String name, int threadCount, Runnable work) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < threadCount; k++) {
            Thread t = new Thread(work, name + "-" + k);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
    }
}
