//! The memory store's PostgreSQL schema (component `memory`), created and migrated
//! when a store connects ([`agent_tools_postgres::migrate`]: under an advisory lock, in one
//! transaction).
//!
//! The tables carry an `agent_tools_` prefix so that they can share a database (and a
//! schema) with an application's own; to keep them in a schema of their own, give the
//! connection a search path (`?options=-c%20search_path%3Dagents` in the URL).

use agent_tools_postgres::Migration;

/// The migrations, in order: the one at index `n` takes version `n` to `n + 1`.
pub(super) const MIGRATIONS: &[Migration] = &[CREATE_MEMORIES];

/// Version 1.
///
/// `search` holds the weighted full-text vector ([`searchable`](super::searchable)
/// text, stemmed with the `english` configuration): the content with weight D, the key
/// and tags with weight C, which `ts_rank`'s default weights count double, as the
/// SQLite store's BM25 does. `write_seq` orders `recent` exactly, across writers on
/// several machines. The indexes: GIN over `search` for words, GIN over `tags` for tag
/// filters, and `(namespace, write_seq)` for `recent` and for searching a common word
/// newest first.
const CREATE_MEMORIES: &str = "
    CREATE SEQUENCE agent_tools_memory_writes;
    CREATE TABLE agent_tools_memories (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        namespace text NOT NULL,
        key text,
        content text NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        search tsvector NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        write_seq bigint NOT NULL DEFAULT nextval('agent_tools_memory_writes'),
        UNIQUE (namespace, key)
    );
    CREATE INDEX agent_tools_memories_search ON agent_tools_memories USING gin (search);
    CREATE INDEX agent_tools_memories_tags ON agent_tools_memories USING gin (tags);
    CREATE INDEX agent_tools_memories_recent ON agent_tools_memories (namespace, write_seq);
";
