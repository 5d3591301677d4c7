package dev.sharding.autoconfigure;

import javax.sql.DataSource;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;

/**
 * The URL a {@link DataSource} is configured with, read from its bean properties when it cannot connect.
 */
final class DataSourceUrls {

    private DataSourceUrls() {}

    /**
     * Describes a DataSource by its URL, for a failure report.
     *
     * @param dataSource the DataSource
     * @return " (url)", or "" when it exposes none
     */
    static String describe(DataSource dataSource) {
        BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(dataSource);
        for (String property : new String[] {"jdbcUrl", "url", "URL"}) {
            try {
                if (wrapper.isReadableProperty(property) && wrapper.getPropertyValue(property) instanceof String url) {
                    return " (" + url + ")";
                }
            } catch (RuntimeException e) {
                // not every DataSource answers: go on with the next name
            }
        }
        return "";
    }
}
