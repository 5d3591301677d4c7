package dev.sharding.sample;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The sample's DataSource, made only when {@code spring.datasource.url} is given, from the usual
 * {@code spring.datasource.*} properties (and {@code spring.datasource.hikari.*}), as Spring Boot would. The sharding
 * store then keeps its data in that database, which nodes on several hosts can share. Without the URL the sample has
 * no DataSource and the store uses its embedded H2 file.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("spring.datasource.url")
@EnableConfigurationProperties(DataSourceProperties.class)
class SampleDataSourceConfiguration {

    /**
     * The pool.
     *
     * @param properties {@code spring.datasource.*}
     * @return a HikariCP pool over the URL
     */
    @Bean(destroyMethod = "close")
    @ConfigurationProperties("spring.datasource.hikari")
    HikariDataSource dataSource(DataSourceProperties properties) {
        return properties
                .initializeDataSourceBuilder()
                .type(HikariDataSource.class)
                .build();
    }
}
