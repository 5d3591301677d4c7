package dev.sharding.autoconfigure.mistakes;

/** A message that is not a record, with two constructors and no {@code @JsonCreator}: Jackson cannot make one. */
public class Amount {

    private final long value;

    /**
     * From a number.
     *
     * @param value the amount
     */
    public Amount(long value) {
        this.value = value;
    }

    /**
     * From text.
     *
     * @param value the amount as text
     */
    public Amount(String value) {
        this(Long.parseLong(value));
    }

    /**
     * The amount.
     *
     * @return the amount
     */
    public long getValue() {
        return value;
    }
}
