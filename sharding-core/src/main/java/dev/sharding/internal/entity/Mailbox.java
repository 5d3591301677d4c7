package dev.sharding.internal.entity;

import dev.sharding.internal.transport.SendingThreads;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>{@link EntityCell} is the entity's side: what each delivery does, and when the mailbox retires.
 */
abstract class Mailbox implements Runnable {

    /** The most deliveries one run takes before it lets other entities run. */
    public static final int THROUGHPUT = 32;

    /** The bit of {@link #state} set while the mailbox is scheduled: a run is queued, under way or suspended. */
    private static final long SCHEDULED = 1;

    /** One message counted in {@link #state}. */
    private static final long ONE = 2;

    private final ConcurrentLinkedQueue<Delivery> queue = new ConcurrentLinkedQueue<>();

    /**
     * {@link #SCHEDULED}, plus {@link #ONE} for each message (not signal) counted against the bound: added by its
     * sender before it enters the mailbox, taken off by the run that took it when that run ends or suspends, or by
     * its sender when it takes it back.
     */
    private final AtomicLong state = new AtomicLong();

    /**
     * The mailbox's head, taken and put back ({@link #hold}): a delivery that waits for something before it can be
     * handled. The next run takes it before the queue.
     */
    private @Nullable Delivery held;

    private final Executor executor;

    Mailbox(Executor executor) {
        this.executor = executor;
    }

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
        if ((state.getAndAdd(ONE) >>> 1) >= bound) {
            state.getAndAdd(-ONE);
            return false;
        }
        return true;
    }

    /** Puts a counted delivery in the mailbox; {@link #schedule} or {@link #takeBack} follows. */
    final void put(Delivery delivery) {
        queue.offer(delivery);
    }

    /**
     * Takes a delivery put by this sender back out of the mailbox, unless a run took it already.
     *
     * @return whether it was taken back (and uncounted)
     */
    final boolean takeBack(Delivery d) {
        if (!queue.remove(d)) {
            return false;
        }
        if (!(d.message() instanceof Signal)) {
            state.getAndAdd(-ONE);
        }
        return true;
    }

    /**
     * Schedules the mailbox unless it is scheduled. Read after the delivery entered the mailbox: a run that releases
     * the mailbox clears the bit before it looks at the mailbox, so either it sees the delivery or this sees the bit
     * clear.
     */
    final void schedule() {
        long s = state.get();
        while ((s & SCHEDULED) == 0) {
            if (state.compareAndSet(s, s | SCHEDULED)) { // fails also when only the count moved: look again
                executor.execute(this);
                return;
            }
            s = state.get();
        }
    }

    @Override
    public final void run() {
        if (!(Thread.currentThread() instanceof EntityExecutors.EntityThread)) { // those are marked when they start
            SendingThreads.nodeThread(); // what an entity sends waits at most max-wait for a slow member
        }
        long took = 0; // what this run took off the mailbox's count, in ONEs
        for (int i = 0; i < THROUGHPUT; i++) {
            Delivery d = held;
            if (d != null) {
                held = null;
            } else {
                d = queue.poll();
                if (d != null && !(d.message() instanceof Signal)) {
                    took += ONE;
                }
            }
            if (d == null) {
                if (retireWhenIdle()) {
                    state.getAndAdd(-took - SCHEDULED);
                    return;
                }
                break;
            }
            if (!process(d)) {
                if (took != 0) {
                    state.getAndAdd(-took);
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
    private void release(long took) {
        state.getAndAdd(-took - SCHEDULED);
        if (!queue.isEmpty()) {
            schedule();
        }
    }

    /** Puts a delivery taken by this run back at the head; the run then suspends. Draining thread. */
    final void hold(Delivery d) {
        held = d;
    }

    /** Runs the mailbox again after it waited: for a completion, or for something a held delivery waits for. */
    final void resumeRun() {
        executor.execute(this);
    }

    /**
     * Runs the mailbox again after a completion that leaves nothing taken, on the completing thread: when nothing
     * waits and {@code idle} allows, the mailbox is released here, as a run finding it empty would do, instead of by
     * a task on the executor that would find nothing to do (a thread hand-off per completion).
     */
    final void resumeAfterCompletion(boolean idle) {
        if (idle && held == null && queue.isEmpty()) {
            release(0);
        } else {
            resumeRun();
        }
    }

    /** Whether nothing waits in the queue (the held delivery aside). */
    final boolean queueEmpty() {
        return queue.isEmpty();
    }

    /** Whether a stop signal waits in the queue. */
    final boolean stopQueued() {
        return queue.stream().anyMatch(q -> q.message() instanceof Signal.Stop);
    }
}
