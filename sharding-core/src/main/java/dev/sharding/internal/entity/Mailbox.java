package dev.sharding.internal.entity;

import dev.sharding.internal.entity.MailboxLink.Node;
import dev.sharding.internal.transport.SendingThreads;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The mailbox of one entity, and its scheduling: drained by at most one task at a time on the shared entity executor,
 * up to {@link #THROUGHPUT} messages per run, so the entity sees one message at a time in arrival order with no lock.
 * The mailbox suspends (the task ends without releasing it, and a completion resumes it) while {@link #process} says
 * it must wait. It holds at most a bound of messages (signals of the runtime always fit, {@link #count}).
 *
 * <p>The bound costs a sender one atomic add, on the word that also says whether the mailbox is scheduled (which the
 * sender reads anyway), and the draining thread one atomic add per run rather than per message: the messages a run
 * takes count against the bound until the run ends or suspends. So the mailbox never holds more than the bound of
 * waiting messages, and refuses a message early by at most the {@link #THROUGHPUT} messages of the run under way (it
 * may refuse with {@code bound - 32} waiting while the run's last handler runs).
 *
 * <p>The queue is a linked list that many threads put to and one takes from: a sender swaps its node in as the last
 * one and then links it to the one before; the draining thread follows the links. The mailbox itself is the list's
 * resting link, so an idle mailbox holds no object besides itself (an entity's memory is mostly its idle mailbox, and a
 * node holds millions); each delivery costs one node, as a {@code ConcurrentLinkedQueue} would. A delivery is taken
 * back by clearing its node, which the draining thread then skips.
 *
 * <p>{@link EntityCell} is the entity's side: what each delivery does, and when the mailbox retires.
 */
abstract class Mailbox extends MailboxLink implements Runnable {

    /** The most deliveries one run takes before it lets other entities run. */
    public static final int THROUGHPUT = 32;

    /** The bit of {@link #state} set while the mailbox is scheduled: a run is queued, under way or suspended. */
    private static final int SCHEDULED = 1;

    /** One message counted in {@link #state}. */
    private static final int ONE = 2;

    private static final VarHandle STATE;

    private static final VarHandle LAST;

    private static final VarHandle ITEM;

    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(Mailbox.class, "state", int.class);
            LAST = lookup.findVarHandle(Mailbox.class, "last", MailboxLink.class);
            ITEM = lookup.findVarHandle(Node.class, "item", Delivery.class);
            NEXT = lookup.findVarHandle(MailboxLink.class, "next", MailboxLink.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@link #SCHEDULED}, plus {@link #ONE} for each message (not signal) counted against the bound: added by its
     * sender before it enters the mailbox, taken off by the run that took it when that run ends or suspends, or by
     * its sender when it takes it back. Through {@link #STATE}. An {@code int}: with a bound of at most {@link
     * dev.sharding.ShardingSettings#MAX_MAILBOX_SIZE}, the count stays within it however many senders add at once.
     */
    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    /** The queue's last link, where senders put (through {@link #LAST}); the mailbox itself when it rests. */
    @SuppressWarnings("FieldMayBeFinal") // through LAST
    private volatile MailboxLink last = this;

    /**
     * The queue's first link, which the next take returns unless it is the mailbox itself (the resting link, which
     * is passed over); the draining thread's alone.
     */
    private MailboxLink first = this;

    /** Where the mailbox runs. */
    abstract Executor executor();

    /**
     * Handles one delivery, on the draining thread.
     *
     * @return false when the mailbox must wait for a completion (which resumes it)
     */
    abstract boolean process(Delivery d);

    /**
     * The queue was found empty: whether the mailbox leaves for good (the cell retired), in which case it is not
     * released.
     */
    abstract boolean retireWhenIdle();

    /**
     * Counts a delivery against the bound before it is put, unless it is a signal.
     *
     * @return false, having counted nothing, when the bound is reached: the delivery must be refused
     */
    final boolean count(Delivery delivery, int bound) {
        if (delivery.message() instanceof Signal) {
            return true;
        }
        if (((int) STATE.getAndAdd(this, ONE) >>> 1) >= bound) {
            STATE.getAndAdd(this, -ONE);
            return false;
        }
        return true;
    }

    /**
     * Puts a counted delivery in the mailbox; {@link #schedule} or {@link #takeBack} follows.
     *
     * @return its place in the queue, for {@link #takeBack}
     */
    final Node put(Delivery delivery) {
        Node node = new Node(delivery);
        append(node);
        return node;
    }

    /**
     * Links a link in as the last one: it is taken once its predecessor links to it, right after the swap. The swap
     * is the step others judge the queue by ({@link #queueEmpty}) and orders everything around it; the link itself
     * needs only to publish the node, so it is a release store, not a second fence per delivery.
     */
    private void append(MailboxLink link) {
        MailboxLink before = (MailboxLink) LAST.getAndSet(this, link);
        NEXT.setRelease(before, link);
    }

    /**
     * Takes a delivery put by this sender back out of the mailbox, unless a run took it already.
     *
     * @return whether it was taken back (and uncounted)
     */
    final boolean takeBack(Node node) {
        Delivery d = (Delivery) ITEM.getAndSet(node, (Delivery) null);
        if (d == null) {
            return false;
        }
        if (!(d.message() instanceof Signal)) {
            STATE.getAndAdd(this, -ONE);
        }
        return true;
    }

    /**
     * The next delivery of the queue, or null when none is linked yet (a sender that swapped its node in but has not
     * linked it yet schedules the mailbox after it links it). Draining thread.
     */
    private @Nullable Delivery poll() {
        while (true) {
            Node node = takeNode();
            if (node == null) {
                return null;
            }
            Delivery d = (Delivery) ITEM.getAndSet(node, (Delivery) null);
            if (d != null) {
                return d;
            }
            // its sender took it back
        }
    }

    /** Unlinks the first node, passing over the resting link and linking it in again behind the last node. */
    private @Nullable Node takeNode() {
        MailboxLink head = first;
        MailboxLink next = head.next;
        if (head == this) {
            if (next == null) {
                return null;
            }
            first = next;
            head = next;
            next = next.next;
        }
        if (next != null) {
            first = next;
            return (Node) head;
        }
        if (head != last) {
            return null; // a sender swapped a node in behind head and has not linked it yet
        }
        // head is the last node: the resting link goes behind it, so that head can leave the queue
        NEXT.setRelease(this, (MailboxLink) null); // ordered before the swap that puts it back
        append(this);
        next = head.next;
        if (next != null) {
            first = next;
            return (Node) head;
        }
        return null; // a sender came between, and has not linked yet
    }

    /**
     * Schedules the mailbox unless it is scheduled. Read after the delivery entered the mailbox: a run that releases
     * the mailbox clears the bit before it looks at the mailbox, so either it sees the delivery or this sees the bit
     * clear.
     */
    final void schedule() {
        int s = (int) STATE.getVolatile(this);
        while ((s & SCHEDULED) == 0) {
            if (STATE.compareAndSet(this, s, s | SCHEDULED)) { // fails also when only the count moved: look again
                executor().execute(this);
                return;
            }
            s = (int) STATE.getVolatile(this);
        }
    }

    @Override
    public final void run() {
        if (!(Thread.currentThread() instanceof EntityExecutors.EntityThread)) { // those are marked when they start
            SendingThreads.nodeThread(); // what an entity sends waits at most max-wait for a slow member
        }
        int took = 0; // what this run took off the mailbox's count, in ONEs
        for (int i = 0; i < THROUGHPUT; i++) {
            Delivery d = poll();
            if (d != null && !(d.message() instanceof Signal)) {
                took += ONE;
            }
            if (d == null) {
                if (retireWhenIdle()) {
                    STATE.getAndAdd(this, -took - SCHEDULED);
                    return;
                }
                break;
            }
            if (!process(d)) {
                if (took != 0) {
                    STATE.getAndAdd(this, -took);
                }
                return; // suspended; a completion reschedules this mailbox
            }
        }
        release(took);
    }

    /**
     * Releases the mailbox, and takes what the run took off the count in the same step; then schedules it again if a
     * message raced in: such a message is seen either here or by its sender, which schedules the mailbox once it is
     * released.
     */
    private void release(int took) {
        STATE.getAndAdd(this, -took - SCHEDULED);
        if (!queueEmpty()) {
            schedule();
        }
    }

    /**
     * Puts a delivery taken by this run back at the head of the queue, where the next run takes it first; it counts
     * against the bound again. The run then suspends. Draining thread: the head is its own, so nothing races with
     * this.
     */
    final void hold(Delivery d) {
        Node node = new Node(d);
        node.next = first;
        first = node;
        if (!(d.message() instanceof Signal)) {
            STATE.getAndAdd(this, ONE);
        }
    }

    /** Runs the mailbox again after it waited: for a completion, or for something a held delivery waits for. */
    final void resumeRun() {
        executor().execute(this);
    }

    /**
     * Runs the mailbox again after a completion that leaves nothing taken, on the completing thread: when nothing
     * waits and {@code idle} allows, the mailbox is released here, as a run finding it empty would do, instead of by
     * a task on the executor that would find nothing to do (a thread hand-off per completion).
     */
    final void resumeAfterCompletion(boolean idle) {
        if (idle && queueEmpty()) {
            release(0);
        } else {
            resumeRun();
        }
    }

    /**
     * Whether the queue holds nothing: it rests on the mailbox, and no sender has swapped a node in since (a node
     * taken back may still be in it, and counts). A sender swaps its node in before it reads the mailbox's state and
     * its cell's life, so it either finds the mailbox released, and schedules it, or is seen here by whoever released
     * it; a node swapped in and not linked yet makes the queue not empty, and the run that finds nothing to take
     * schedules the mailbox again until its sender links it (a few instructions later). Draining thread.
     */
    final boolean queueEmpty() {
        return first == this && last == this;
    }

    /** Whether a stop signal waits in the queue. Draining thread. */
    final boolean stopQueued() {
        for (MailboxLink link = first; link != null; link = link.next) {
            if (link instanceof Node node) {
                Delivery d = (Delivery) ITEM.getVolatile(node);
                if (d != null && d.message() instanceof Signal.Stop) {
                    return true;
                }
            }
        }
        return false;
    }
}
