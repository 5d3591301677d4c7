package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.boot.test.AutoConfigureShardingTest;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.Snapshot;
import dev.sharding.store.InMemoryShardingStore;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * A deposit whose write the store fails answers 503 with {@code Retry-After}, never 422 (the status of a deposit the
 * account refuses), and changes nothing; a deposit once the store answers again succeeds. A deposit whose commit lost
 * its answer answers 504, and the account goes on from what the store holds.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sharding.node-name=outage-node")
@AutoConfigureShardingTest
class StoreOutageApiTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @LocalServerPort
    private int port;

    @Autowired
    private FailingWrites store;

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @AfterEach
    void storeAnswers() {
        store.failing = false;
        store.lostAfterApplying = false;
    }

    @Test
    void aDepositWhoseCommitWasLostAnswers504AndTheAccountGoesOnFromWhatWasStored() {
        String deposit = url("/accounts/lost-1/deposit");
        assertThat(http.postJson(deposit, "{\"amount\": 5}").status()).isEqualTo(200);

        store.lostAfterApplying = true;
        JsonHttp.Answer lost = http.postJson(deposit, "{\"amount\": 7}", "lost-key");
        assertThat(lost.status()).as("%s", lost).isEqualTo(504);
        assertThat(lost.contentType()).startsWith("application/problem+json");
        assertThat(lost.body().get("detail").asString())
                .contains("may or may not have been stored")
                .contains("same idempotency key");
        store.lostAfterApplying = false;

        JsonHttp.Answer read = http.get(url("/accounts/lost-1"));
        assertThat(read.status()).as("%s", read).isEqualTo(200);
        assertThat(read.body().get("balance").longValue())
                .as("the account read what was stored, not the balance from before the deposit")
                .isEqualTo(12);
        JsonHttp.Answer retried = http.postJson(deposit, "{\"amount\": 7}", "lost-key");
        assertThat(retried.status()).as("%s", retried).isEqualTo(200);
        assertThat(retried.body().get("balance").longValue())
                .as("the retry with the same key answers the recorded deposit, once")
                .isEqualTo(12);
        JsonHttp.Answer next = http.postJson(deposit, "{\"amount\": 1}");
        assertThat(next.body().get("balance").longValue()).isEqualTo(13);
    }

    @Test
    void aDepositTheStoreFailedAnswers503WithRetryAfterAndChangesNothing() {
        String deposit = url("/accounts/outage-1/deposit");
        assertThat(http.postJson(deposit, "{\"amount\": 5}").status()).isEqualTo(200);

        store.failing = true;
        JsonHttp.Answer failed = http.postJson(deposit, "{\"amount\": 7}");
        assertThat(failed.status()).as("%s", failed).isEqualTo(503);
        assertThat(failed.retryAfter()).as("%s", failed).isEqualTo("1");
        assertThat(failed.contentType()).startsWith("application/problem+json");
        assertThat(failed.body().get("detail").asString())
                .contains("could not be stored because the store failed")
                .contains("no effect");
        // the same deposit with an idempotency key: 503 too, and no key recorded
        JsonHttp.Answer keyed = http.postJson(deposit, "{\"amount\": 7}", "outage-key");
        assertThat(keyed.status()).as("%s", keyed).isEqualTo(503);
        JsonHttp.Answer read = http.get(url("/accounts/outage-1"));
        assertThat(read.status())
                .as("the account in memory still answers reads: %s", read)
                .isEqualTo(200);
        assertThat(read.body().get("balance").longValue()).isEqualTo(5);

        store.failing = false;
        JsonHttp.Answer retried = http.postJson(deposit, "{\"amount\": 7}", "outage-key");
        assertThat(retried.status()).as("%s", retried).isEqualTo(200);
        assertThat(retried.body().get("balance").longValue()).isEqualTo(12);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Store {

        @Bean(destroyMethod = "close")
        FailingWrites shardingStore() {
            return new FailingWrites(new InMemoryShardingStore());
        }
    }

    /**
     * A store whose writes (state writes and event appends: the account is event-sourced) fail as a database that
     * lost its connections fails them, while told to.
     */
    static final class FailingWrites implements ShardingStore {

        private final ShardingStore store;

        volatile boolean failing;

        /** Writes are stored, then fail as a commit whose answer the connection lost. */
        volatile boolean lostAfterApplying;

        FailingWrites(ShardingStore store) {
            this.store = store;
        }

        private <T> @Nullable CompletableFuture<T> outage() {
            return failing
                    ? CompletableFuture.failedFuture(new SQLTransientConnectionException("the database is cut off"))
                    : null;
        }

        @Override
        public Set<Capability> capabilities() {
            return store.capabilities();
        }

        @Override
        public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
            return store.read(typeName, entityId);
        }

        @Override
        public CompletableFuture<StoredState> write(
                String typeName, String entityId, int shardId, long epoch, byte[] state) {
            CompletableFuture<StoredState> failed = outage();
            return failed != null ? failed : store.write(typeName, entityId, shardId, epoch, state);
        }

        @Override
        public CompletableFuture<StoredState> write(
                String typeName, String entityId, int shardId, long epoch, byte[] state, byte @Nullable [] applied) {
            CompletableFuture<StoredState> failed = outage();
            if (failed != null) {
                return failed;
            }
            CompletableFuture<StoredState> written = store.write(typeName, entityId, shardId, epoch, state, applied);
            return lostAfterApplying
                    ? written.thenCompose(stored -> CompletableFuture.failedFuture(
                            new StoreOutcomeUnknownException("the connection broke while the write of [" + typeName
                                    + "/" + entityId + "] was committed")))
                    : written;
        }

        @Override
        public CompletableFuture<Long> appendEvents(
                String typeName,
                String entityId,
                int shardId,
                long epoch,
                long expectedLastSequenceNr,
                List<NewEvent> events,
                byte @Nullable [] applied,
                @Nullable Snapshot snapshot) {
            CompletableFuture<Long> failed = outage();
            if (failed != null) {
                return failed;
            }
            CompletableFuture<Long> appended = store.appendEvents(
                    typeName, entityId, shardId, epoch, expectedLastSequenceNr, events, applied, snapshot);
            return lostAfterApplying
                    ? appended.thenCompose(last -> CompletableFuture.failedFuture(
                            new StoreOutcomeUnknownException("the connection broke while the append to [" + typeName
                                    + "/" + entityId + "] was committed")))
                    : appended;
        }

        @Override
        public CompletableFuture<Recovery> recover(String typeName, String entityId) {
            return store.recover(typeName, entityId);
        }

        @Override
        public CompletableFuture<List<PersistedEvent>> eventsOf(
                String typeName, String entityId, long fromSequenceNr, int maxCount) {
            return store.eventsOf(typeName, entityId, fromSequenceNr, maxCount);
        }

        @Override
        public CompletableFuture<List<PersistedEvent>> eventsByTag(String tag, long afterOffset, int maxCount) {
            return store.eventsByTag(tag, afterOffset, maxCount);
        }

        @Override
        public CompletableFuture<List<PersistedEvent>> eventsBySlice(
                String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
            return store.eventsBySlice(typeName, minShardId, maxShardId, afterOffset, maxCount);
        }

        @Override
        public CompletableFuture<Long> lastGlobalOffset() {
            return store.lastGlobalOffset();
        }

        @Override
        public CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
            CompletableFuture<Void> failed = outage();
            return failed != null ? failed : store.delete(typeName, entityId, shardId, epoch);
        }

        @Override
        public CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
            return store.nextEpoch(typeName, shardId);
        }

        @Override
        public CompletableFuture<Map<Integer, Long>> currentEpochs(String typeName) {
            return store.currentEpochs(typeName);
        }

        @Override
        public CompletableFuture<Void> updateRemembered(
                String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
            return store.updateRemembered(typeName, shardId, started, stopped);
        }

        @Override
        public CompletableFuture<Void> updateRemembered(
                String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
            return store.updateRemembered(typeName, shardId, epoch, started, stopped);
        }

        @Override
        public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
            return store.remembered(typeName, shardId);
        }

        @Override
        public CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
            return store.shardsWithRemembered(typeName);
        }

        @Override
        public CompletableFuture<Long> clearShardingData() {
            return store.clearShardingData();
        }

        @Override
        public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
                String clusterName, String holderId, String holderName, Duration duration) {
            return store.acquireCoordinatorLease(clusterName, holderId, holderName, duration);
        }

        @Override
        public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
            return store.releaseCoordinatorLease(clusterName, holderId);
        }

        @Override
        public CompletableFuture<Optional<String>> storeId() {
            return store.storeId();
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
