package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.store.CommitCheck.Verdict;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a state row read after a commit that got no answer says of that commit. */
class CommitCheckTest {

    private static final byte[] WRITTEN = "written".getBytes(StandardCharsets.UTF_8);

    /** The transaction updated a row from version 4 to 6 (two writes) under epoch 3. */
    private static final WriteBatch.Witness UPDATE = new WriteBatch.Witness("account", "a", 4, 6, 3, WRITTEN);

    /** The transaction inserted a row at version 1 under epoch 3. */
    private static final WriteBatch.Witness INSERT = new WriteBatch.Witness("account", "a", 0, 1, 3, WRITTEN);

    @Test
    void theRowAsTheTransactionLeftItMeansCommitted() {
        assertThat(CommitCheck.verdict(UPDATE, new StoredState(WRITTEN, 6, 3, null)))
                .isEqualTo(Verdict.COMMITTED);
        assertThat(CommitCheck.verdict(INSERT, new StoredState(WRITTEN, 1, 3, null)))
                .isEqualTo(Verdict.COMMITTED);
    }

    @Test
    void theRowAsItWasBeforeMeansNotCommitted() {
        assertThat(CommitCheck.verdict(UPDATE, new StoredState(bytes("older"), 4, 2, null)))
                .isEqualTo(Verdict.NOT_COMMITTED);
        assertThat(CommitCheck.verdict(INSERT, null)).isEqualTo(Verdict.NOT_COMMITTED);
    }

    @Test
    void anythingElseLeavesTheOutcomeUnknown() {
        // deleted since (a new owner under a newer epoch)
        assertThat(CommitCheck.verdict(UPDATE, null)).isEqualTo(Verdict.UNKNOWN);
        // written by a new owner under a newer epoch
        assertThat(CommitCheck.verdict(UPDATE, new StoredState(bytes("newer"), 7, 4, null)))
                .isEqualTo(Verdict.UNKNOWN);
        assertThat(CommitCheck.verdict(INSERT, new StoredState(bytes("newer"), 1, 4, null)))
                .isEqualTo(Verdict.UNKNOWN);
        // the version the transaction wrote, but another state: not this transaction's row
        assertThat(CommitCheck.verdict(UPDATE, new StoredState(bytes("other"), 6, 3, null)))
                .isEqualTo(Verdict.UNKNOWN);
        // the version before, under a newer epoch than the transaction's
        assertThat(CommitCheck.verdict(UPDATE, new StoredState(bytes("older"), 4, 5, null)))
                .isEqualTo(Verdict.UNKNOWN);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
