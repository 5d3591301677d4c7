package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AdminResult;
import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.Counter;
import dev.sharding.test.LoopbackTcp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.View;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.LazyRemovalCache;
import org.jgroups.util.NameCache;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A view that arrives before JGroups knows a new member's name (as when the member is missing from the initial hosts
 * and discovery has not answered yet): the member is first named by its UUID, and by its name once JGroups learns it,
 * so that the members list shows it and a shard can be handed off to it by name.
 */
class LateNameClusterTest {

    private final List<ShardingNode> nodes = new ArrayList<>();

    /** Hides the name of the first member that joins from the view's delivery, then gives it back. */
    static final class ForgetNameOnce extends Protocol {

        final AtomicReference<@Nullable String> forgotten = new AtomicReference<>();

        @Override
        public Object up(Event evt) {
            if (evt.getType() != Event.VIEW_CHANGE || forgotten.get() != null) {
                return up_prot.up(evt);
            }
            View view = evt.getArg();
            Address joiner = view.size() > 1 ? view.getMembers().get(view.size() - 1) : null;
            String name = joiner == null ? null : NameCache.get(joiner);
            if (joiner == null || name == null || !forgotten.compareAndSet(null, name)) {
                return up_prot.up(evt);
            }
            forget(joiner);
            try {
                return up_prot.up(evt);
            } finally {
                NameCache.add(joiner, name);
            }
        }
    }

    /** Removes a name from JGroups' cache for good (its own remove only marks the entry). */
    @SuppressWarnings("unchecked")
    static void forget(Address member) {
        try {
            java.lang.reflect.Field f = NameCache.class.getDeclaredField("cache");
            f.setAccessible(true);
            ((LazyRemovalCache<Address, String>) f.get(null)).remove(member, true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void stop() {
        nodes.forEach(ShardingNode::close);
    }

    @Test
    void aMemberFirstSeenWithoutItsNameIsNamedOnceItIsKnownAndShardsCanBeHandedOffToIt() throws Exception {
        List<ShardingSettings> settings = LoopbackTcp.nodes("late-name", 2);
        ForgetNameOnce forget = new ForgetNameOnce();
        LoopbackTcp.start(
                settings,
                s -> ShardingNode.builder(s).entityType(Counter.type()).channelCustomizer(ch -> {
                    if (settings.indexOf(s) == 0) {
                        ProtocolStack stack = ch.getProtocolStack();
                        stack.insertProtocolInStack(forget, stack.getTopProtocol(), ProtocolStack.Position.ABOVE);
                    }
                }),
                nodes);
        ShardingNode first = nodes.get(0);
        ShardingNode joiner = nodes.get(1);
        assertThat(forget.forgotten.get())
                .as("the joiner's name hidden from the first view")
                .isEqualTo(joiner.nodeName());

        Awaitility.await("the joiner named on the first node")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.members().stream().map(Member::name).toList().contains(joiner.nodeName()));

        // a shard on the first node, handed off to the joiner by its name
        String id = null;
        for (int i = 0; id == null; i++) {
            Counter.Total t = first.region(Counter.class)
                    .ask("c-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            if (t.node().equals(first.nodeName())) {
                id = t.id();
            }
        }
        int shard = EntityType.shardOf(id, first.localRegion("counter").numberOfShards());
        // the entity may answer before its region's confirmation of the shard reached the coordinator: then the
        // coordinator says so, and the request is made again
        AtomicReference<AdminResult> result = new AtomicReference<>();
        Awaitility.await("the handoff accepted").atMost(Duration.ofSeconds(30)).until(() -> {
            AdminResult r =
                    first.admin().handOff("counter", shard, joiner.nodeName()).get(30, TimeUnit.SECONDS);
            result.set(r);
            return r.accepted() || !r.message().contains("is being allocated");
        });
        assertThat(result.get().accepted()).as(result.get().message()).isTrue();
        String entity = id;
        Awaitility.await("the shard moved to the joiner")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.region(Counter.class)
                        .ask(entity, new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .node()
                        .equals(joiner.nodeName()));
    }
}
