package dev.sharding.autoconfigure;

import static dev.sharding.autoconfigure.bank.BankCluster.REPLY_SECONDS;
import static dev.sharding.autoconfigure.bank.BankCluster.accountHostedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.bank.Account;
import dev.sharding.autoconfigure.bank.AuditLog;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.autoconfigure.bank.Cart;
import dev.sharding.autoconfigure.bank.Payments;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * Entities as Spring beans in a cluster of two application contexts in one JVM.
 */
class ShardedEntityClusterTests {

    private static final BankCluster cluster = new BankCluster();

    private static ConfigurableApplicationContext n1;

    private static ConfigurableApplicationContext n2;

    @BeforeAll
    static void startCluster() {
        n1 = cluster.start("n1");
        n2 = cluster.start("n2");
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void entityGetsItsContextAndAnotherBeanThroughItsConstructorAndPostConstructRunsAtActivation() throws Exception {
        String id = accountHostedOn(n1, "ctor-", "n2");
        AuditLog audit = n2.getBean(AuditLog.class);
        assertThat(audit.entries()).containsOnlyOnce("activated " + id);
        Account.Balance balance = n1.getBean(Payments.class).deposit(id, 10).get(REPLY_SECONDS, TimeUnit.SECONDS);
        assertThat(balance).isEqualTo(new Account.Balance(id, 10, "n2"));
        assertThat(audit.entries()).as("activated once, not per message").containsOnlyOnce("activated " + id);
        assertThat(n1.getBean(AuditLog.class).entries()).doesNotContain("activated " + id);
    }

    @Test
    void regionIsInjectedIntoAServiceByItsGenericType() {
        ShardRegion<Account> accounts = n1.getBean(Payments.class).accounts();
        assertThat(accounts.typeName()).isEqualTo("account");
        assertThat(accounts)
                .isSameAs(n1.getBean(ShardingNode.class).region(Account.class))
                .isSameAs(n1.getBean("accountShardRegion"));
        ShardRegion<?> carts =
                (ShardRegion<?>) n1.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Cart.class))
                        .getObject();
        assertThat(carts.typeName()).isEqualTo("cart");
        assertThat(n2.getBean(Payments.class).accounts())
                .isSameAs(n2.getBean(ShardingNode.class).region(Account.class));
    }

    @Test
    void handlerReturnValueIsTheAskReply() throws Exception {
        Payments payments = n2.getBean(Payments.class);
        String id = accountHostedOn(n2, "reply-", "n1");
        assertThat(payments.deposit(id, 20).get(REPLY_SECONDS, TimeUnit.SECONDS).balance())
                .isEqualTo(20);
        assertThat(payments.deposit(id, 22).get(REPLY_SECONDS, TimeUnit.SECONDS))
                .isEqualTo(new Account.Balance(id, 42, "n1"));
        Integer items = n2.getBean(ShardingNode.class)
                .region(Cart.class)
                .ask("cart-1", new Cart.AddItem("book"), Integer.class)
                .get(REPLY_SECONDS, TimeUnit.SECONDS);
        assertThat(items).isEqualTo(1);
    }

    @Test
    void handlerExceptionFailsTheAskWithTheRemoteClassNameAndTheEntityKeepsRunning() throws Exception {
        String id = accountHostedOn(n1, "failing-", "n2");
        Payments payments = n1.getBean(Payments.class);
        payments.deposit(id, 5).get(REPLY_SECONDS, TimeUnit.SECONDS);
        CompletableFuture<Account.Balance> failed = payments.deposit(id, -1);
        assertThatThrownBy(() -> failed.get(REPLY_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(EntityException.class, e -> {
                    assertThat(e.remoteClassName()).isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(e.remoteMessage()).isEqualTo("Amount must be positive: -1");
                });
        assertThat(payments.accounts()
                        .ask(id, new Account.GetBalance(), Account.Balance.class)
                        .get(REPLY_SECONDS, TimeUnit.SECONDS))
                .isEqualTo(new Account.Balance(id, 5, "n2"));
        assertThat(n2.getBean(AuditLog.class).entries())
                .as("the same instance kept running")
                .containsOnlyOnce("activated " + id)
                .doesNotContain("stopped " + id);
    }

    @Test
    void completionStageHandlerHoldsTheEntityUntilItCompletes() throws Exception {
        String id = accountHostedOn(n1, "async-", "n2");
        ShardRegion<Account> accounts = n1.getBean(Payments.class).accounts();
        CompletableFuture<Account.Balance> later =
                accounts.ask(id, new Account.DepositLater(7, 200), Account.Balance.class);
        CompletableFuture<Account.Balance> read = accounts.ask(id, new Account.GetBalance(), Account.Balance.class);
        assertThat(read.get(REPLY_SECONDS, TimeUnit.SECONDS).balance())
                .as("the read waited for the asynchronous deposit")
                .isEqualTo(7);
        assertThat(later.get(REPLY_SECONDS, TimeUnit.SECONDS)).isEqualTo(new Account.Balance(id, 7, "n2"));
    }

    @Test
    void entitiesRunPreDestroyBeforeTheBeansTheyUseWhenTheirContextCloses() throws Exception {
        ConfigurableApplicationContext n3 = cluster.start("n3");
        ShardRegion<Account> accounts = n1.getBean(Payments.class).accounts();
        List<String> onN3 = new ArrayList<>();
        for (int i = 0; i < 200 && onN3.size() < 3; i++) {
            Account.Balance balance = accounts.ask("leaving-" + i, new Account.Deposit(1), Account.Balance.class)
                    .get(REPLY_SECONDS, TimeUnit.SECONDS);
            if (balance.node().equals("n3")) {
                onN3.add(balance.id());
            }
        }
        assertThat(onN3).as("accounts placed on the new node").hasSize(3);
        AuditLog audit = n3.getBean(AuditLog.class);
        ShardingNode node = n3.getBean(ShardingNode.class);

        n3.close();

        assertThat(node.isRunning()).isFalse();
        assertThat(audit.isOpen()).isFalse();
        for (String id : onN3) {
            assertThat(audit.entries())
                    .containsOnlyOnce("activated " + id, "stopped " + id)
                    .doesNotContain("stopped after the audit log closed " + id);
        }
        cluster.awaitConverged();
        for (String id : onN3) {
            Account.Balance balance = accounts.ask(id, new Account.Deposit(1), Account.Balance.class)
                    .get(REPLY_SECONDS, TimeUnit.SECONDS);
            assertThat(balance.node()).as("%s moved to a remaining node", id).isIn("n1", "n2");
        }
    }
}
