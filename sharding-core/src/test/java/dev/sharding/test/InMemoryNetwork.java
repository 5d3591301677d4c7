package dev.sharding.test;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A network in memory, for testing the protocol logic without JGroups: every member gets frames from each sender in
 * order on its own delivery thread, views are delivered to all, and rules can drop or duplicate chosen messages.
 */
public final class InMemoryNetwork {

    private final List<Node> members = new CopyOnWriteArrayList<>();

    private final List<Rule> rules = new CopyOnWriteArrayList<>();

    private final ProtocolCodec codec = new ProtocolCodec(1 << 20);

    private final AtomicLong ids = new AtomicLong();

    private final Map<String, AtomicLong> dropped = new ConcurrentHashMap<>();

    /**
     * Drops the first {@code count} frames that match.
     *
     * @param name names the rule in {@link #dropped(String)}
     * @param count how many
     * @param match which messages
     */
    public void drop(String name, int count, Predicate<ProtocolMessage> match) {
        rules.add(new Rule(name, count, match, false));
    }

    /**
     * Delivers the first {@code count} frames that match twice.
     *
     * @param name names the rule
     * @param count how many
     * @param match which messages
     */
    public void duplicate(String name, int count, Predicate<ProtocolMessage> match) {
        rules.add(new Rule(name, count, match, true));
    }

    /**
     * How many frames a rule dropped or duplicated.
     *
     * @param name the rule
     * @return the count
     */
    public long dropped(String name) {
        return dropped.getOrDefault(name, new AtomicLong()).get();
    }

    /**
     * A new transport on this network.
     *
     * @param name the member name
     * @return the transport
     */
    public Transport transport(String name) {
        // ids unique across networks too, as JGroups addresses are: two networks may share one store
        return new Node(new Member(
                java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1, ids.incrementAndGet(), name));
    }

    private void publishView() {
        List<Member> view = members.stream().map(n -> n.self).toList();
        for (Node n : members) {
            n.inbox.execute(() -> n.listener.onView(view));
        }
    }

    private final class Node implements Transport {

        final Member self;

        final ExecutorService inbox;

        volatile Listener listener;

        Node(Member self) {
            this.self = self;
            this.inbox = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "inbox-" + self.name());
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void start(Listener l) {
            this.listener = l;
            members.add(this);
            publishView();
        }

        @Override
        public Member self() {
            return self;
        }

        @Override
        public boolean send(Member to, byte[] frame, boolean outOfBand) {
            Node target =
                    members.stream().filter(n -> n.self.equals(to)).findFirst().orElse(null);
            if (target == null) {
                return true;
            }
            int copies = 1;
            ProtocolMessage msg = codec.decode(frame, 0, frame.length);
            for (Rule r : rules) {
                if (r.remaining.get() > 0 && r.match.test(msg) && r.remaining.getAndDecrement() > 0) {
                    dropped.computeIfAbsent(r.name, k -> new AtomicLong()).incrementAndGet();
                    copies = r.duplicate ? 2 : 0;
                    break;
                }
            }
            for (int i = 0; i < copies; i++) {
                target.inbox.execute(() -> target.listener.onFrame(self, frame, 0, frame.length));
            }
            return true;
        }

        @Override
        public void close() {
            members.remove(this);
            publishView();
            inbox.shutdown();
        }
    }

    private record Rule(String name, AtomicLong remaining, Predicate<ProtocolMessage> match, boolean duplicate) {
        Rule(String name, int count, Predicate<ProtocolMessage> match, boolean duplicate) {
            this(name, new AtomicLong(count), match, duplicate);
        }
    }

    /**
     * Delivers a forged message to a member as if another member had sent it.
     *
     * @param from the name of the member it claims to come from
     * @param to the name of the member that gets it
     * @param message the message
     */
    public void inject(String from, String to, ProtocolMessage message) {
        Node sender = members.stream()
                .filter(n -> n.self.name().equals(from))
                .findFirst()
                .orElseThrow();
        Node target = members.stream()
                .filter(n -> n.self.name().equals(to))
                .findFirst()
                .orElseThrow();
        byte[] frame = codec.encode(message);
        target.inbox.execute(() -> target.listener.onFrame(sender.self, frame, 0, frame.length));
    }

    /**
     * The member of a name.
     *
     * @param name the name
     * @return the member
     */
    public dev.sharding.Member member(String name) {
        return members.stream()
                .filter(n -> n.self.name().equals(name))
                .findFirst()
                .orElseThrow()
                .self;
    }

    /**
     * The members now on the network.
     *
     * @return their names
     */
    public List<String> memberNames() {
        List<String> names = new ArrayList<>();
        members.forEach(n -> names.add(n.self.name()));
        return names;
    }
}
