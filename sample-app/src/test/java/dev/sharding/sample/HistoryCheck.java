package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Reads accounts' histories ({@code GET /accounts/{id}/history}) and waits until each holds exactly the deposits
 * acknowledged to the test: every one, once, in the order they were made, numbered 1, 2, 3... and summing to the
 * balance.
 */
final class HistoryCheck {

    private HistoryCheck() {}

    /**
     * The amounts of an account's history, in its order, after checking its shape: the account's id, entries numbered
     * 1, 2, 3... (no deposit twice, none missing before the last), each with a time.
     *
     * @param id the account
     * @param a the answer to {@code GET /accounts/{id}/history}
     * @return the amounts
     */
    static List<Long> amounts(String id, JsonHttp.Answer a) {
        assertThat(a.status()).as("history of %s: %s", id, a).isEqualTo(200);
        JsonNode body = a.body();
        assertThat(body.path("id").asString()).as("id in %s", a).isEqualTo(id);
        assertThat(body.path("entries").isArray()).as("entries in %s", a).isTrue();
        List<Long> amounts = new ArrayList<>();
        for (JsonNode entry : body.path("entries")) {
            assertThat(entry.path("sequenceNr").asLong())
                    .as("entry %d of the history of %s, each deposit once and in order: %s", amounts.size(), id, a)
                    .isEqualTo(amounts.size() + 1L);
            assertThat(entry.path("amount").asLong()).as("amount in %s", a).isPositive();
            assertThat(entry.path("depositedAt").asString()).as("time in %s", a).isNotBlank();
            amounts.add(entry.path("amount").asLong());
        }
        return amounts;
    }

    /**
     * Waits until every account's history equals its acknowledged deposits, and checks that they sum to its balance.
     * A history is read through the node {@code via} gives for the account; an answer that is not 200 while the
     * cluster recovers (503, or no connection) is read again.
     *
     * @param acknowledged each account's acknowledged deposits, in the order they were made
     * @param balances each account's balance
     * @param via the base URL (http://host:port) to read an account's history through
     * @param timeout how long the projection may take to catch up, for every account together
     */
    static void awaitHistories(
            Map<String, List<Long>> acknowledged,
            Map<String, Long> balances,
            Function<String, String> via,
            Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Map.Entry<String, List<Long>> account : acknowledged.entrySet()) {
            String id = account.getKey();
            List<Long> expected = account.getValue();
            String last = "no answer yet";
            while (true) {
                JsonHttp.Answer a;
                try {
                    a = SampleCluster.HTTP.get(via.apply(id) + "/accounts/" + id + "/history");
                } catch (UncheckedIOException e) {
                    a = null;
                    last = e.getMessage();
                }
                if (a != null && a.status() == 200) {
                    List<Long> seen = amounts(id, a);
                    assertThat(seen.size() <= expected.size() && seen.equals(expected.subList(0, seen.size())))
                            .as(
                                    "the history of %s, %s, is the start of its acknowledged deposits %s",
                                    id, seen, expected)
                            .isTrue();
                    if (seen.equals(expected)) {
                        break;
                    }
                    last = "history " + seen;
                } else if (a != null) {
                    assertThat(a.status())
                            .as("history of %s while the cluster recovers: %s", id, a)
                            .isEqualTo(503);
                    last = a.toString();
                }
                if (System.nanoTime() > deadline) {
                    fail(
                            "The history of %s does not hold its acknowledged deposits %s after %s; last seen: %s",
                            id, expected, timeout, last);
                }
                SampleCluster.pause(Duration.ofMillis(100));
            }
            assertThat(expected.stream().mapToLong(Long::longValue).sum())
                    .as("the history of %s sums to its balance", id)
                    .isEqualTo(balances.get(id));
        }
    }

    /**
     * Waits until every account's history, read through a node, sums to the balance the account answers through it,
     * for accounts whose deposits the test cannot list exactly (some failed or went unanswered).
     *
     * @param ids the accounts, into which nothing is deposited any more
     * @param via the base URL (http://host:port) of the node to read through
     * @param timeout how long the projection may take to catch up, for every account together
     */
    static void awaitHistoriesSumToBalances(List<String> ids, String via, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String id : ids) {
            JsonHttp.Answer read = SampleCluster.HTTP.get(via + "/accounts/" + id);
            assertThat(read.status()).as("balance of %s: %s", id, read).isEqualTo(200);
            long balance = read.body().path("balance").asLong();
            while (true) {
                List<Long> seen = amounts(id, SampleCluster.HTTP.get(via + "/accounts/" + id + "/history"));
                long sum = seen.stream().mapToLong(Long::longValue).sum();
                assertThat(sum)
                        .as("the history of %s, %s, at most its balance", id, seen)
                        .isLessThanOrEqualTo(balance);
                if (sum == balance) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    fail(
                            "The history of %s sums to %d, not to its balance %d, after %s: %s",
                            id, sum, balance, timeout, seen);
                }
                SampleCluster.pause(Duration.ofMillis(100));
            }
        }
    }
}
