package dev.sharding.internal.lease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The listeners of one lease keeper, told in the order they registered. Control thread, but for registration. */
final class LeaseEvents implements LeaseListener {

    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

    void add(LeaseListener listener) {
        listeners.add(listener);
    }

    @Override
    public void coordinatorMayRun() {
        listeners.forEach(LeaseListener::coordinatorMayRun);
    }

    @Override
    public void stopServing(String reason) {
        listeners.forEach(l -> l.stopServing(reason));
    }

    @Override
    public void holdDelivery() {
        listeners.forEach(LeaseListener::holdDelivery);
    }

    @Override
    public void resumeServing() {
        listeners.forEach(LeaseListener::resumeServing);
    }

    @Override
    public void storeUsedByAnotherCluster(String reason) {
        listeners.forEach(l -> l.storeUsedByAnotherCluster(reason));
    }
}
