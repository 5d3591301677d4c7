package dev.sharding;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A setting's value breaks its rule. Names the setting as its {@code sharding.*} property without the prefix (for
 * example {@code number-of-shards}), the value and the rule, so that a framework can report it against the property.
 */
public class InvalidSettingException extends IllegalArgumentException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String setting;

    private final transient @Nullable Object value;

    private final String rule;

    /**
     * Creates the exception.
     *
     * @param setting the setting, as its property name without {@code sharding.}
     * @param value the value
     * @param rule the rule it breaks
     */
    public InvalidSettingException(String setting, @Nullable Object value, String rule) {
        super("Invalid setting sharding." + setting + "=" + value + ": " + rule);
        this.setting = setting;
        this.value = value;
        this.rule = rule;
    }

    /**
     * The setting.
     *
     * @return its property name without {@code sharding.}
     */
    public String setting() {
        return setting;
    }

    /**
     * The value.
     *
     * @return the value
     */
    public @Nullable Object value() {
        return value;
    }

    /**
     * The rule the value breaks.
     *
     * @return the rule, as "must be positive"
     */
    public String rule() {
        return rule;
    }

    /**
     * Throws unless a rule holds.
     *
     * @param ok whether the rule holds
     * @param setting the setting, as its property name without {@code sharding.}
     * @param value the value
     * @param rule the rule
     */
    static void require(boolean ok, String setting, @Nullable Object value, String rule) {
        if (!ok) {
            throw new InvalidSettingException(setting, value, rule);
        }
    }
}
