package dev.sharding.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The check after an H run: every account's balance, read back over HTTP, against the deposits to it that were
 * acknowledged (answered 200). A balance below them lost an acknowledged deposit; one above them plus the deposits
 * whose outcome the client cannot know (an error status other than 4xx, a broken connection, a timeout) counts
 * money never deposited.
 *
 * @param accounts accounts checked
 * @param ackedAmount sum of the acknowledged amounts
 * @param uncertainAmount sum of the amounts of deposits whose outcome is unknown
 * @param balanceSum sum of the balances read
 * @param lostAmount acknowledged amount missing from the balances, summed over accounts
 * @param lostAccounts accounts with such a loss
 * @param extraAmount balance beyond acknowledged plus uncertain, summed over accounts
 * @param unreadable accounts whose balance could not be read
 * @param firstProblem the first account that did not add up, or null
 */
record BalanceCheck(
        int accounts,
        long ackedAmount,
        long uncertainAmount,
        long balanceSum,
        long lostAmount,
        long lostAccounts,
        long extraAmount,
        long unreadable,
        @Nullable String firstProblem) {

    /** The balance of an account that could not be read. */
    static final long UNREAD = -1;

    /**
     * Compares.
     *
     * @param acked acknowledged amount per account
     * @param uncertain amount of uncertain deposits per account
     * @param balances balance read per account, {@link #UNREAD} where none
     * @return the outcome
     */
    static BalanceCheck of(long[] acked, long[] uncertain, long[] balances) {
        if (acked.length != uncertain.length || acked.length != balances.length) {
            throw new IllegalArgumentException("acked, uncertain and balances differ in length: " + acked.length + ", "
                    + uncertain.length + ", " + balances.length);
        }
        long ackedSum = 0;
        long uncertainSum = 0;
        long balanceSum = 0;
        long lost = 0;
        long lostAccounts = 0;
        long extra = 0;
        long unreadable = 0;
        String first = null;
        for (int i = 0; i < acked.length; i++) {
            ackedSum += acked[i];
            uncertainSum += uncertain[i];
            long b = balances[i];
            if (b == UNREAD) {
                unreadable++;
                first = first != null ? first : DepositWorkload.id(i) + ": balance not read";
                continue;
            }
            balanceSum += b;
            if (b < acked[i]) {
                lost += acked[i] - b;
                lostAccounts++;
            } else if (b > acked[i] + uncertain[i]) {
                extra += b - acked[i] - uncertain[i];
            } else {
                continue;
            }
            first = first != null
                    ? first
                    : DepositWorkload.id(i) + ": acknowledged " + acked[i] + " (+ " + uncertain[i] + " uncertain),"
                            + " balance " + b;
        }
        return new BalanceCheck(
                acked.length, ackedSum, uncertainSum, balanceSum, lost, lostAccounts, extra, unreadable, first);
    }

    /** {@return whether every acknowledged deposit is there and nothing beyond} */
    boolean ok() {
        return lostAmount == 0 && extraAmount == 0 && unreadable == 0;
    }

    /** {@return why the check failed, or null when it passed} */
    @Nullable
    String error() {
        if (ok()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        if (lostAmount > 0) {
            b.append("LOST ")
                    .append(lostAmount)
                    .append(" of the acknowledged amount in ")
                    .append(lostAccounts);
            b.append(" accounts; ");
        }
        if (extraAmount > 0) {
            b.append("balances exceed what was deposited by ")
                    .append(extraAmount)
                    .append("; ");
        }
        if (unreadable > 0) {
            b.append(unreadable).append(" balances could not be read; ");
        }
        return b.append("first: ").append(firstProblem).toString();
    }

    /** {@return the check as the output line's fields} */
    Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("accounts", accounts);
        m.put("acked_amount", ackedAmount);
        m.put("uncertain_amount", uncertainAmount);
        m.put("balance_sum", balanceSum);
        m.put("lost_amount", lostAmount);
        m.put("lost_accounts", lostAccounts);
        m.put("extra_amount", extraAmount);
        m.put("unreadable", unreadable);
        return m;
    }
}
