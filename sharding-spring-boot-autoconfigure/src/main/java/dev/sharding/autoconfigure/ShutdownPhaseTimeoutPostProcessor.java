package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;
import java.time.Duration;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.support.DefaultLifecycleProcessor;
import org.springframework.core.env.Environment;

/**
 * Gives the sharding node's shutdown phase ({@link ShardingLifecycle#PHASE}) enough time for a graceful leave:
 * {@code sharding.handoff-timeout} plus {@link #MARGIN}, whatever {@code spring.lifecycle.timeout-per-shutdown-phase}
 * says. Otherwise Spring would go on destroying the beans that entities use while shards are still being handed off.
 */
final class ShutdownPhaseTimeoutPostProcessor implements BeanPostProcessor {

    /** Time beyond the handoff timeout for stopping what is left and leaving the cluster. */
    static final Duration MARGIN = Duration.ofSeconds(30);

    private final Environment environment;

    ShutdownPhaseTimeoutPostProcessor(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DefaultLifecycleProcessor processor) {
            Duration handoff = Binder.get(this.environment)
                    .bind("sharding.handoff-timeout", Duration.class)
                    .orElse(ShardingSettings.DEFAULT_HANDOFF_TIMEOUT);
            processor.setTimeoutForShutdownPhase(
                    ShardingLifecycle.PHASE, handoff.plus(MARGIN).toMillis());
        }
        return bean;
    }
}
