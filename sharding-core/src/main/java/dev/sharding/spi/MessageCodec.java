package dev.sharding.spi;

import dev.sharding.MessageRejectedException;

/**
 * Turns messages and replies into bytes and back. Only types the application declared may be decoded: a frame
 * naming any other type is rejected, never instantiated.
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

    /**
     * The built-in codec: the class name, then a Jackson Smile document of the value's fields; only the declared types
     * (and the JDK's simple value types) decode. It is what a node uses unless given another, so it reads what a node
     * wrote, a stored entity state included.
     *
     * @param declaredTypes the types that may be encoded and decoded
     * @param maxSize the largest encoding accepted, in bytes
     * @return the codec
     */
    static MessageCodec jackson(java.util.Collection<Class<?>> declaredTypes, int maxSize) {
        return new dev.sharding.internal.codec.JacksonMessageCodec(declaredTypes, maxSize);
    }
}
