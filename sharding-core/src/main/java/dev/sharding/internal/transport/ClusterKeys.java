package dev.sharding.internal.transport;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The cluster key: derived from {@code sharding.jgroups.secret} with PBKDF2 (no key file needed), or read from a key
 * store. The cluster name is part of the derivation, so two clusters that share a secret still have distinct keys.
 * Each node then seals its traffic with a session key of its own derived from the cluster key
 * ({@link #sessionKey(byte[], byte[])}), so that nonces never repeat across nodes.
 */
public final class ClusterKeys {

    /** PBKDF2 iterations: about a tenth of a second once per node start, and slow to guess offline. */
    static final int PBKDF2_ITERATIONS = 310_000;

    private static final String CONTEXT = "dev.sharding cluster key v1:";

    private ClusterKeys() {}

    /**
     * The cluster key of the settings.
     *
     * @param settings the JGroups settings
     * @param clusterName the cluster name
     * @return 32 bytes, or {@code null} when neither a secret nor a key store is set
     * @throws ShardingException if the key store cannot be read or holds no usable key
     */
    public static byte @Nullable [] clusterKey(JgroupsSettings settings, String clusterName) {
        String secret = settings.secret();
        if (secret != null) {
            return fromSecret(secret, clusterName);
        }
        JgroupsSettings.KeyStoreSettings store = settings.keyStore();
        return store == null ? null : fromKeyStore(store, clusterName);
    }

    static byte[] fromSecret(String secret, String clusterName) {
        try {
            SecretKeyFactory factory = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            PBEKeySpec spec = new PBEKeySpec(
                    secret.toCharArray(),
                    (CONTEXT + clusterName).getBytes(StandardCharsets.UTF_8),
                    PBKDF2_ITERATIONS,
                    256);
            try {
                return factory.generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new ShardingException("Cannot derive the cluster key from sharding.jgroups.secret: " + e, e);
        }
    }

    static byte[] fromKeyStore(JgroupsSettings.KeyStoreSettings settings, String clusterName) {
        Path path = Path.of(settings.path());
        Key key;
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore store = KeyStore.getInstance(settings.type());
            store.load(in, settings.password().toCharArray());
            key = store.getKey(settings.alias(), settings.password().toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            throw new ShardingException(
                    "Cannot read the cluster key from sharding.jgroups.key-store.path=" + settings.path() + " (type "
                            + settings.type() + "): " + e.getMessage(),
                    e);
        }
        if (key == null || key.getEncoded() == null || key.getEncoded().length < 16) {
            throw new ShardingException("Invalid setting sharding.jgroups.key-store.alias=" + settings.alias() + ": "
                    + settings.path() + " holds no secret key of at least 128 bits under that alias");
        }
        return hmac(key.getEncoded(), (CONTEXT + clusterName).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The AES-256 key one node seals with, from the cluster key and the node's random salt.
     *
     * @param clusterKey the cluster key
     * @param salt the sender's salt, as carried in each sealed message's header
     * @return the session key
     */
    static SecretKeySpec sessionKey(byte[] clusterKey, byte[] salt) {
        byte[] input = new byte[salt.length + 8];
        System.arraycopy("session:".getBytes(StandardCharsets.US_ASCII), 0, input, 0, 8);
        System.arraycopy(salt, 0, input, 8, salt.length);
        return new SecretKeySpec(hmac(clusterKey, input), "AES");
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
