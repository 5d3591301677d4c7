-- The tables of the sharding store on PostgreSQL, for the default table prefix sharding_ (sharding.store.table-prefix).
-- The store runs this script itself when sharding.store.initialize-schema says so; to create the tables with a
-- migration tool instead (Flyway, Liquibase), copy it into a migration, with another prefix if you set one, and set
-- sharding.store.initialize-schema=never. Every statement is idempotent.

-- Nodes starting together would race in CREATE TABLE IF NOT EXISTS (it can fail on the catalog's unique
-- index); a transaction-scoped advisory lock makes them take turns.
SELECT pg_advisory_xact_lock(500152577125);

-- One row per entity with stored state; epoch is the shard allocation that wrote it last. applied_messages holds
-- the ids of the messages the entity applied lately, with their replies, written in the same transaction as the
-- state (state is empty when the entity has none and the row only keeps those ids).
CREATE TABLE IF NOT EXISTS sharding_entity_state (
    type_name VARCHAR(255) NOT NULL,
    entity_id VARCHAR(1024) NOT NULL,
    state BYTEA NOT NULL,
    version BIGINT NOT NULL,
    epoch BIGINT NOT NULL,
    applied_messages BYTEA,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (type_name, entity_id)
);

-- A table created before applied message ids were kept gets their column. Checked first: ALTER TABLE would take the
-- table's exclusive lock at every start even when the column exists.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
            AND table_name = lower('sharding_entity_state') AND column_name = 'applied_messages') THEN
        ALTER TABLE sharding_entity_state ADD COLUMN IF NOT EXISTS applied_messages BYTEA;
    END IF;
END
$$;

-- The latest epoch handed out for each shard.
CREATE TABLE IF NOT EXISTS sharding_shard_epoch (
    type_name VARCHAR(255) NOT NULL,
    shard_id INTEGER NOT NULL,
    epoch BIGINT NOT NULL,
    PRIMARY KEY (type_name, shard_id)
);

-- The ids of remembered entities, restarted with their shard.
CREATE TABLE IF NOT EXISTS sharding_remembered_entity (
    type_name VARCHAR(255) NOT NULL,
    shard_id INTEGER NOT NULL,
    entity_id VARCHAR(1024) NOT NULL,
    PRIMARY KEY (type_name, shard_id, entity_id)
);

-- Which member's coordinator may allocate shards of a cluster over this store, until when (by the database's clock).
CREATE TABLE IF NOT EXISTS sharding_coordinator_lease (
    cluster_name VARCHAR(255) NOT NULL,
    holder_id VARCHAR(255) NOT NULL,
    holder_name VARCHAR(255) NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (cluster_name)
);

-- The store's identity: one row with a random id, created by the first node that asks for it.
CREATE TABLE IF NOT EXISTS sharding_store (
    id INTEGER NOT NULL CHECK (id = 1),
    store_id VARCHAR(64) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (id)
);

-- The event journal of event-sourced entities: one row per event, numbered per entity (sequence_nr, 1, 2, 3...
-- with no gap) and across the store (global_offset, handed out in commit order with no hole: see
-- sharding_event_offset). An entity's last sequence number, the epoch of its last append and its applied message ids
-- are its row in sharding_entity_state (state empty, version = last sequence number). tags holds the event's tags
-- separated by the character U+001F. The unique global_offset is what the reads by tag join on; the second unique
-- key (unique since global_offset is) serves the reads of a type's slices (a range of shards) in offset order. Both
-- are constraints of the table, so that concurrent runs of this script cannot race to create them.
CREATE TABLE IF NOT EXISTS sharding_event_journal (
    type_name VARCHAR(255) NOT NULL,
    entity_id VARCHAR(1024) NOT NULL,
    sequence_nr BIGINT NOT NULL,
    global_offset BIGINT NOT NULL,
    shard_id INTEGER NOT NULL,
    epoch BIGINT NOT NULL,
    event_type VARCHAR(255) NOT NULL,
    event_version INTEGER NOT NULL,
    payload BYTEA NOT NULL,
    tags TEXT NOT NULL,
    written_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (type_name, entity_id, sequence_nr),
    UNIQUE (global_offset),
    UNIQUE (type_name, global_offset, shard_id)
);

-- One row per tag of an event, for the reads by tag in offset order.
CREATE TABLE IF NOT EXISTS sharding_event_tag (
    tag VARCHAR(255) NOT NULL,
    global_offset BIGINT NOT NULL,
    PRIMARY KEY (tag, global_offset)
);

-- The latest snapshot of each event-sourced entity: its state as of event sequence_nr.
CREATE TABLE IF NOT EXISTS sharding_event_snapshot (
    type_name VARCHAR(255) NOT NULL,
    entity_id VARCHAR(1024) NOT NULL,
    sequence_nr BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    epoch BIGINT NOT NULL,
    written_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (type_name, entity_id)
);

-- The last global offset handed out: one row, created by the first append. Every transaction that appends events
-- increments it just before its commit and so holds it until then: offsets follow commit order, and a reader paging
-- by offset never skips an event that committed late.
CREATE TABLE IF NOT EXISTS sharding_event_offset (
    id INTEGER NOT NULL CHECK (id = 1),
    last_offset BIGINT NOT NULL,
    PRIMARY KEY (id)
);

-- How far each slice of each projection has gone: the global offset of the last event its worker handled, moved by
-- a compare-and-set on the offset the worker read (and, for exactly-once projections, in the transaction of the
-- projection's own writes).
CREATE TABLE IF NOT EXISTS sharding_projection_offset (
    projection_name VARCHAR(255) NOT NULL,
    slice INTEGER NOT NULL,
    last_offset BIGINT NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (projection_name, slice)
);
