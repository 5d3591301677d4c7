package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityHandler;
import dev.sharding.UnhandledMessageException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class EntityHandlersTest {

    interface Event {}

    record Created(String name) implements Event {}

    record Deleted() implements Event {}

    record Query(int n) {}

    sealed interface Command permits Deposit, Correction {}

    record Deposit(long amount) implements Command {}

    sealed interface Correction extends Command permits Refund, Reversal {}

    record Refund(long amount) implements Correction {}

    enum Reversal implements Correction {
        LAST
    }

    sealed interface Outcome permits Accepted, Declined {}

    record Accepted(long balance) implements Outcome {}

    record Declined(String why) implements Outcome {}

    static class Ledger {

        @EntityHandler
        Outcome on(Command c) {
            return new Accepted(1);
        }
    }

    record Answer(int n) {}

    static class Base {

        String last;

        @EntityHandler
        void onEvent(Event e) {
            last = "event";
        }
    }

    static class Entity extends Base {

        @EntityHandler
        String onCreated(Created c) {
            last = "created";
            return "hello " + c.name();
        }

        @EntityHandler
        CompletionStage<Answer> onQuery(Query q) {
            return CompletableFuture.completedFuture(new Answer(q.n() * 2));
        }

        @EntityHandler
        long count(Long x) {
            return x + 1;
        }

        @EntityHandler
        void fail(Integer i) throws Exception {
            throw new java.io.IOException("io " + i);
        }
    }

    static class TwoParams {
        @EntityHandler
        void bad(String a, String b) {}
    }

    static class Duplicate {
        @EntityHandler
        void one(String a) {}

        @EntityHandler
        void two(String b) {}
    }

    static class NoHandlers {}

    private final EntityHandlers handlers = EntityHandlers.of(Entity.class);

    @Test
    void dispatchesByRuntimeTypeAndTheMostSpecificParameterWins() throws Throwable {
        Entity e = new Entity();
        assertThat(handlers.invoke(e, new Created("x"))).isEqualTo("hello x");
        assertThat(e.last).isEqualTo("created");
        assertThat(handlers.invoke(e, new Deleted())).isNull();
        assertThat(e.last).isEqualTo("event");
        assertThat(handlers.invoke(e, 41L)).isEqualTo(42L);
        assertThat(((CompletionStage<?>) handlers.invoke(e, new Query(4)))
                        .toCompletableFuture()
                        .join())
                .isEqualTo(new Answer(8));
    }

    @Test
    void unhandledTypesAndHandlerExceptionsSurface() {
        Entity e = new Entity();
        assertThat(handlers.handles(Query.class)).isTrue();
        assertThat(handlers.handles(Answer.class)).isFalse();
        assertThatThrownBy(() -> handlers.invoke(e, new Answer(1)))
                .isInstanceOf(UnhandledMessageException.class)
                .hasMessageContaining(Answer.class.getName());
        assertThatThrownBy(() -> handlers.invoke(e, 3))
                .isInstanceOf(java.io.IOException.class)
                .hasMessage("io 3");
    }

    @Test
    void declaresParameterAndReplyTypesButNotInterfaces() {
        assertThat(handlers.declaredTypes())
                .contains(Created.class, Query.class, Answer.class, String.class, Long.class, Integer.class)
                .doesNotContain(Event.class, Deleted.class);
    }

    @Test
    void aSealedParameterOrReplyTypeDeclaresTheClassesItPermitsThroughEveryLevel() throws Throwable {
        EntityHandlers ledger = EntityHandlers.of(Ledger.class);
        assertThat(ledger.declaredTypes())
                .containsExactlyInAnyOrder(Deposit.class, Refund.class, Reversal.class, Accepted.class, Declined.class);
        assertThat(ledger.invoke(new Ledger(), new Refund(3))).isEqualTo(new Accepted(1));
    }

    @Test
    void rejectsBadHandlerDeclarations() {
        assertThatThrownBy(() -> EntityHandlers.of(TwoParams.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one parameter");
        assertThatThrownBy(() -> EntityHandlers.of(Duplicate.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Two @EntityHandler");
        assertThatThrownBy(() -> EntityHandlers.of(NoHandlers.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no @EntityHandler");
    }

    @Test
    void aHandlerOfAnOpenInterfaceWithNoDeclaredImplementationIsNamed() {
        EntityHandlers base = EntityHandlers.of(Base.class);
        assertThat(base.undeclaredParameters(base.declaredTypes()))
                .singleElement()
                .asString()
                .contains(Base.class.getName() + ".onEvent(Event) takes " + Event.class.getName())
                .contains("an interface that is not sealed")
                .contains("sharding.message-types");
        assertThat(base.undeclaredParameters(java.util.Set.of(Deleted.class))).isEmpty();
    }

    @Test
    void handlersOfSealedOrDeclaredTypesAreNotNamed() {
        EntityHandlers entity = EntityHandlers.of(Entity.class); // Created implements Event
        assertThat(entity.undeclaredParameters(entity.declaredTypes())).isEmpty();
        EntityHandlers ledger = EntityHandlers.of(Ledger.class);
        assertThat(ledger.undeclaredParameters(ledger.declaredTypes())).isEmpty();
    }
}
