package dev.sharding.autoconfigure.observation;

import io.micrometer.tracing.Tracer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/** Whether the application has a tracer that records: Micrometer Tracing's {@link Tracer}, other than its no-op one. */
final class Tracers {

    private Tracers() {}

    /**
     * Looks for the application's tracer.
     *
     * @param beans the application's beans
     * @return whether it has one tracer and that tracer is not the no-op one Spring Boot gives without a bridge
     */
    static boolean realTracerIn(ListableBeanFactory beans) {
        if (!ClassUtils.isPresent("io.micrometer.tracing.Tracer", Tracers.class.getClassLoader())) {
            return false;
        }
        return Lookup.real(beans);
    }

    /** Loaded only when Micrometer Tracing is on the class path. */
    private static final class Lookup {

        static boolean real(ListableBeanFactory beans) {
            Tracer tracer = beans.getBeanProvider(Tracer.class).getIfUnique();
            return tracer != null && tracer != Tracer.NOOP;
        }
    }
}
