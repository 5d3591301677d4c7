package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.EntityType;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardedEntity;
import dev.sharding.ShardingNode;
import dev.sharding.test.TestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The test mode {@code serializeLocalMessages}: with it, a message or reply that does not come back from the codec
 * fails on one node exactly as it fails between two nodes without it, a message that does come back is delivered as
 * usual, and a written state the codec cannot read back fails its write, as the shard's next owner would fail to read
 * it.
 */
class LocalRoundTripClusterTest {

    /** Not sealed: the codec cannot tell which class to decode a field of this type into. */
    public interface Detail {}

    /** @param name the colour */
    public record Colour(String name) implements Detail {}

    /** @param detail what the note is about */
    public record Note(Detail detail) {}

    /** @param text a page's text */
    public record Write(String text) {}

    /** @param text the page */
    public record Page(String text) {}

    /** @param name what the entity describes */
    public record Describe(String name) {}

    /** @param detail what is described */
    public record Description(Detail detail) {}

    /** An entity whose messages and replies are of both kinds. */
    @ShardedEntity(type = "notebook", numberOfShards = 10)
    public static class Notebook {

        /**
         * @param write the text
         * @return the page
         */
        @EntityHandler
        public Page on(Write write) {
            return new Page(write.text());
        }

        /**
         * @param note the note
         * @return its detail's class name
         */
        @EntityHandler
        public Page on(Note note) {
            return new Page(note.detail().getClass().getSimpleName());
        }

        /**
         * @param describe what to describe
         * @return a reply that does not decode
         */
        @EntityHandler
        public Description on(Describe describe) {
            return new Description(new Colour(describe.name()));
        }
    }

    /** @param items what is on a shelf: details, which the codec cannot read back */
    public record Contents(List<Detail> items) {}

    /** @param colour a colour to put on the shelf */
    public record Put(String colour) {}

    /** Asks how many items a shelf holds. */
    public record Look() {}

    /** @param items how many items a shelf holds */
    public record Count(int items) {}

    /** An entity whose state the codec writes but cannot read back once it holds an item. */
    @ShardedEntity(type = "shelf", numberOfShards = 10)
    public static class Shelf {

        private final EntityState<Contents> state;

        /** @param context the entity's context */
        public Shelf(EntityContext context) {
            this.state = context.state(Contents.class, () -> new Contents(List.of()));
        }

        /**
         * @param put what to add
         * @return the count
         */
        @EntityHandler
        public Count on(Put put) {
            state.update(c -> {
                List<Detail> items = new ArrayList<>(c.items());
                items.add(new Colour(put.colour()));
                return new Contents(items);
            });
            return new Count(state.get().items().size());
        }

        /**
         * @param look the question
         * @return the count
         */
        @EntityHandler
        public Count on(Look look) {
            return new Count(state.get().items().size());
        }
    }

    private static final EntityType<Notebook> TYPE = EntityType.of(Notebook.class, context -> new Notebook());

    private static final EntityType<Shelf> SHELF =
            EntityType.of(Shelf.class, Shelf::new).withState(Contents.class);

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static TestCluster cluster(boolean serializeLocalMessages) {
        return new TestCluster(settings -> ShardingNode.builder(settings)
                .entityType(TYPE)
                .entityType(SHELF)
                .serializeLocalMessages(serializeLocalMessages));
    }

    private static Throwable failure(ShardRegion<?> region, String id, Object message, Class<?> reply) {
        try {
            region.ask(id, message, reply).get(20, TimeUnit.SECONDS);
            throw new AssertionError("The ask of " + message + " succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void onOneNodeWithTheModeAMessageOrReplyThatDoesNotDecodeFailsAsBetweenTwoNodes() throws Exception {
        cluster = cluster(true);
        ShardRegion<Notebook> one = cluster.startNode().region(Notebook.class);
        assertThat(one.ask("n", new Write("hello"), Page.class).get(20, TimeUnit.SECONDS))
                .isEqualTo(new Page("hello"));
        assertThat(failure(one, "n", new Note(new Colour("red")), Page.class))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("Note");
        assertThat(failure(one, "n", new Describe("red"), Description.class))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("Description");
        one.tell("n", new Note(new Colour("blue")));
        assertThat(one.ask("n", new Write("still here"), Page.class).get(20, TimeUnit.SECONDS))
                .as("the entity goes on after a rejected tell")
                .isEqualTo(new Page("still here"));
    }

    @Test
    void withTheModeAStateTheCodecCannotReadBackFailsItsWriteAndWithoutItIsKept() throws Exception {
        cluster = cluster(true);
        ShardRegion<Shelf> shelves = cluster.startNode().region(Shelf.class);
        assertThat(shelves.ask("s", new Look(), Count.class).get(20, TimeUnit.SECONDS))
                .isEqualTo(new Count(0));
        Throwable failed = failure(shelves, "s", new Put("red"), Count.class);
        assertThat(String.valueOf(failed.getMessage())).as("%s", failed).contains("read back");
        assertThat(shelves.ask("s", new Look(), Count.class).get(20, TimeUnit.SECONDS))
                .as("the state went back to the stored one")
                .isEqualTo(new Count(0));
        cluster.close();

        cluster = cluster(false);
        ShardRegion<Shelf> plain = cluster.startNode().region(Shelf.class);
        assertThat(plain.ask("s", new Put("red"), Count.class).get(20, TimeUnit.SECONDS))
                .isEqualTo(new Count(1));
        assertThat(plain.ask("s", new Look(), Count.class).get(20, TimeUnit.SECONDS))
                .isEqualTo(new Count(1));
    }

    @Test
    void withoutTheModeOneNodeDeliversTheCallersObjectAndTwoNodesRejectIt() throws Exception {
        cluster = cluster(false);
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Notebook> first = nodes.get(0).region(Notebook.class);
        first.ask("probe", new Write("x"), Page.class).get(20, TimeUnit.SECONDS);
        String home = nodes.stream()
                .filter(n ->
                        n.localRegion("notebook").entityIds().values().stream().anyMatch(ids -> ids.contains("probe")))
                .findFirst()
                .orElseThrow()
                .nodeName();
        ShardRegion<Notebook> local =
                nodes.get(0).nodeName().equals(home) ? first : nodes.get(1).region(Notebook.class);
        ShardRegion<Notebook> remote = local == first ? nodes.get(1).region(Notebook.class) : first;
        assertThat(local.ask("probe", new Note(new Colour("red")), Page.class).get(20, TimeUnit.SECONDS))
                .isEqualTo(new Page("Colour"));
        assertThat(failure(remote, "probe", new Note(new Colour("red")), Page.class))
                .isInstanceOf(MessageRejectedException.class);
        assertThatThrownBy(() -> remote.ask("probe", new Describe("red"), Description.class)
                        .get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(MessageRejectedException.class);
    }
}
