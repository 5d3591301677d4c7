package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BalanceCheckTest {

    @Test
    void passesWhenEveryAcknowledgedDepositIsThereAndUncertainOnesMayBe() {
        BalanceCheck c = BalanceCheck.of(new long[] {10, 0, 5}, new long[] {0, 3, 4}, new long[] {10, 3, 5});

        assertThat(c.ok()).isTrue();
        assertThat(c.error()).isNull();
        assertThat(c.ackedAmount()).isEqualTo(15);
        assertThat(c.uncertainAmount()).isEqualTo(7);
        assertThat(c.balanceSum()).isEqualTo(18);
    }

    @Test
    void countsAcknowledgedAmountsMissingFromBalancesAsLost() {
        BalanceCheck c = BalanceCheck.of(new long[] {10, 7, 5}, new long[] {20, 0, 0}, new long[] {9, 7, 0});

        assertThat(c.ok()).isFalse();
        assertThat(c.lostAmount()).isEqualTo(6);
        assertThat(c.lostAccounts()).isEqualTo(2);
        assertThat(c.error())
                .startsWith("LOST 6 of the acknowledged amount in 2 accounts")
                .contains("first: a-0");
    }

    @Test
    void countsMoneyNeverDepositedAndBalancesNotRead() {
        BalanceCheck c =
                BalanceCheck.of(new long[] {10, 1, 0}, new long[] {2, 0, 0}, new long[] {13, BalanceCheck.UNREAD, 0});

        assertThat(c.lostAmount()).isZero();
        assertThat(c.extraAmount()).isEqualTo(1);
        assertThat(c.unreadable()).isEqualTo(1);
        assertThat(c.error()).contains("exceed what was deposited by 1").contains("1 balances could not be read");
    }
}
