package dev.sharding.autoconfigure.bank;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;
import java.util.ArrayList;
import java.util.List;

/**
 * A second entity type, so that a {@code ShardRegion<Account>} must be told from a {@code ShardRegion<Cart>} by its
 * generic type.
 */
@ShardedEntity(type = "cart")
public class Cart {

    private final List<String> items = new ArrayList<>();

    /**
     * Adds an item.
     *
     * @param add the item
     * @return the number of items
     */
    @EntityHandler
    public Integer on(AddItem add) {
        this.items.add(add.item());
        return this.items.size();
    }

    /**
     * Adds an item.
     *
     * @param item the item
     */
    public record AddItem(String item) {}
}
