package dev.sharding.spi;

import dev.sharding.MessageRejectedException;

/**
 * Turns messages and replies into bytes and back. Only types the application declared may be decoded: a frame
 * naming any other type is rejected, never instantiated.
 *
 * <p>A node uses a built-in codec unless given another: the class name, then a Jackson Smile document of the value's
 * fields, only the declared types (and the JDK's simple value types) decoding.
 *
 * <p>Implementations are shared by all threads and must be thread-safe.
 */
public interface MessageCodec {

    /**
     * Encodes a message or reply, with whatever the decoder needs to know its type.
     *
     * @param value the value, an instance of a declared type
     * @return the bytes
     * @throws MessageRejectedException if the type is not declared or the encoding is larger than allowed
     */
    byte[] encode(Object value);

    /**
     * Decodes what {@link #encode(Object)} produced.
     *
     * @param buffer the bytes
     * @param offset where the encoding starts
     * @param length its length
     * @return the value
     * @throws MessageRejectedException if the bytes name an undeclared type, are too large, or do not decode
     */
    Object decode(byte[] buffer, int offset, int length);
}
