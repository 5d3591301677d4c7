package dev.sharding.autoconfigure;

import dev.sharding.BackpressureSettings;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/**
 * How much a node queues toward a member that reads slowly, how long its threads wait for room there, and when such
 * a member is suspected, bound from {@code sharding.backpressure.*}.
 */
public class BackpressureProperties {

    /**
     * The longest a thread waits for room in the queue toward one member before its message is refused: an ask fails
     * with MemberBehindException, a tell is dropped and counted, a reply is dropped and its asker times out. Zero
     * refuses at once.
     */
    private Duration maxWait = Duration.ofMillis(50);

    /**
     * The most bytes queued toward one member, and separately in the queue of the JGroups messages to it that are sent
     * while delivering. Control messages have a quarter more in reserve; threads that may wait start waiting at a
     * quarter of it.
     */
    private DataSize maxQueuedBytes = DataSize.ofMegabytes(4);

    /**
     * How long a member may stay behind (messages queued toward it and none sent, or a send to it not returning)
     * before it is reported to failure detection and removed from the view as a crashed member would be. Zero never
     * reports.
     */
    private Duration suspectAfter = Duration.ofSeconds(5);

    public Duration getMaxWait() {
        return this.maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public DataSize getMaxQueuedBytes() {
        return this.maxQueuedBytes;
    }

    public void setMaxQueuedBytes(DataSize maxQueuedBytes) {
        this.maxQueuedBytes = maxQueuedBytes;
    }

    public Duration getSuspectAfter() {
        return this.suspectAfter;
    }

    public void setSuspectAfter(Duration suspectAfter) {
        this.suspectAfter = suspectAfter;
    }

    /**
     * The core settings these properties stand for.
     *
     * @return the settings, not yet validated
     */
    BackpressureSettings toSettings() {
        return new BackpressureSettings(this.maxWait, this.maxQueuedBytes.toBytes(), this.suspectAfter);
    }
}
