package dev.sharding.autoconfigure.dashboard;

import dev.sharding.autoconfigure.ConditionalOnShardingEnabled;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.ShardingConfigurationException;
import dev.sharding.autoconfigure.ShardingProperties;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint;
import dev.sharding.autoconfigure.actuate.ShardingEndpointAutoConfiguration;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the live dashboard at {@code /sharding-dashboard/}, only when
 * {@code sharding.dashboard.enabled=true} in a servlet web application that runs a sharding node. Without it nothing is
 * served there (404).
 */
@AutoConfiguration(after = {ShardingAutoConfiguration.class, ShardingEndpointAutoConfiguration.class})
@ConditionalOnShardingEnabled
@ConditionalOnBooleanProperty("sharding.dashboard.enabled")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public final class ShardingDashboardAutoConfiguration {

    /** The smallest refresh interval: each read asks every member for its regions. */
    static final Duration MIN_REFRESH_INTERVAL = Duration.ofMillis(100);

    /** The path of the dashboard. */
    public static final String PATH = "/sharding-dashboard";

    /** The servlet, where the servlet API is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HttpServlet.class)
    static class DashboardServletConfiguration {

        /**
         * The servlet, mapped to {@code /sharding-dashboard} and below.
         *
         * @param properties the sharding properties
         * @param location where the endpoint is; absent without the actuator
         * @return its registration
         */
        @Bean
        @ConditionalOnMissingBean(name = "shardingDashboardServlet")
        ServletRegistrationBean<ShardingDashboardServlet> shardingDashboardServlet(
                ShardingProperties properties, ObjectProvider<ShardingDashboardServlet.EndpointLocation> location) {
            Duration refresh = properties.getDashboard().getRefreshInterval();
            if (refresh.compareTo(MIN_REFRESH_INTERVAL) < 0) {
                throw new ShardingConfigurationException(
                        "sharding.dashboard.refresh-interval is " + refresh + ", below the smallest allowed, "
                                + MIN_REFRESH_INTERVAL.toMillis() + "ms",
                        "Set sharding.dashboard.refresh-interval to 100ms or more (default 1s)",
                        null);
            }
            ShardingDashboardServlet servlet =
                    new ShardingDashboardServlet(location.getIfAvailable(NoActuator::new), refresh);
            ServletRegistrationBean<ShardingDashboardServlet> registration =
                    new ServletRegistrationBean<>(servlet, PATH, PATH + "/*");
            registration.setName("shardingDashboard");
            return registration;
        }
    }

    /** Where the endpoint is, when the actuator is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({PathMappedEndpoints.class, ShardingEndpoint.class})
    static class EndpointLocationConfiguration {

        /**
         * The endpoint's path as the actuator maps it (base path and path mapping), looked up when the page asks.
         *
         * @param endpoints the actuator's web endpoints, absent when none is exposed
         * @param environment the environment, for the management port
         * @return the location
         */
        @Bean
        ShardingDashboardServlet.EndpointLocation shardingDashboardEndpointLocation(
                ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
            return new ActuatorLocation(endpoints, environment);
        }
    }

    /** The endpoint as the actuator maps it on the application's own port. */
    private record ActuatorLocation(ObjectProvider<PathMappedEndpoints> endpoints, Environment environment)
            implements ShardingDashboardServlet.EndpointLocation {

        @Override
        public @Nullable String path() {
            if (separateManagementPort()) {
                return null;
            }
            PathMappedEndpoints mapped = endpoints.getIfAvailable();
            return mapped == null ? null : mapped.getPath(EndpointId.of("sharding"));
        }

        @Override
        public String problem() {
            if (separateManagementPort()) {
                return "The actuator runs on its own port (management.server.port), which this page cannot read;"
                        + " open the dashboard on an application whose actuator shares the application's port";
            }
            return "The sharding endpoint is not exposed over HTTP: add it to"
                    + " management.endpoints.web.exposure.include (for example health,sharding), and do not set"
                    + " management.endpoint.sharding.access=none";
        }

        private boolean separateManagementPort() {
            String management = environment.getProperty("management.server.port");
            return management != null
                    && !management.isBlank()
                    && !Objects.equals(management, environment.getProperty("server.port", "8080"));
        }
    }

    /** No actuator in the application. */
    private record NoActuator() implements ShardingDashboardServlet.EndpointLocation {

        @Override
        public @Nullable String path() {
            return null;
        }

        @Override
        public String problem() {
            return "The application has no actuator: add spring-boot-starter-actuator and expose the sharding endpoint"
                    + " with management.endpoints.web.exposure.include=health,sharding";
        }
    }
}
