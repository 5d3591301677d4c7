package dev.sharding.autoconfigure;

import dev.sharding.JgroupsSettings;
import org.jspecify.annotations.Nullable;
import org.springframework.util.StringUtils;

/**
 * Properties of the key store holding the cluster key, under {@code sharding.jgroups.key-store}: for those who manage
 * keys themselves instead of a secret.
 */
public class KeyStoreProperties {

    /**
     * Path of a PKCS12 or JCEKS key store with a secret-key entry (AES, 128 or 256 bits) shared by every node. When
     * set, all cluster traffic is encrypted and authenticated with that key.
     */
    private @Nullable String path;

    /**
     * Password of the key store and of the entry.
     */
    private String password = "";

    /**
     * Alias of the secret-key entry.
     */
    private String alias = "sharding";

    /**
     * Type of the key store: PKCS12 or JCEKS.
     */
    private String type = "PKCS12";

    /**
     * The key store path.
     *
     * @return the path, or {@code null}
     */
    public @Nullable String getPath() {
        return this.path;
    }

    /**
     * Sets the key store path.
     *
     * @param path the path
     */
    public void setPath(@Nullable String path) {
        this.path = path;
    }

    /**
     * The password.
     *
     * @return the password
     */
    public String getPassword() {
        return this.password;
    }

    /**
     * Sets the password.
     *
     * @param password the password
     */
    public void setPassword(String password) {
        this.password = password;
    }

    /**
     * The entry's alias.
     *
     * @return the alias
     */
    public String getAlias() {
        return this.alias;
    }

    /**
     * Sets the entry's alias.
     *
     * @param alias the alias
     */
    public void setAlias(String alias) {
        this.alias = alias;
    }

    /**
     * The key store type.
     *
     * @return PKCS12 or JCEKS
     */
    public String getType() {
        return this.type;
    }

    /**
     * Sets the key store type.
     *
     * @param type PKCS12 or JCEKS
     */
    public void setType(String type) {
        this.type = type;
    }

    /**
     * These properties as core settings.
     *
     * @return the key store, or {@code null} when no path is set
     */
    JgroupsSettings.@Nullable KeyStoreSettings toSettings() {
        String file = this.path;
        if (!StringUtils.hasText(file)) {
            return null;
        }
        return new JgroupsSettings.KeyStoreSettings(file, this.password, this.alias, this.type);
    }
}
