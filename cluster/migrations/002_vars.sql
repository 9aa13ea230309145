-- The shared variable store (the store API of cluster mode): one row per
-- key; its value is a blob in the object store, named by its digest.
CREATE TABLE rlm_store_vars (
    key        text PRIMARY KEY,
    scope      text NOT NULL,
    type       text NOT NULL,
    -- How the blob holds the value: 'text' (its UTF-8 bytes) or 'json'.
    encoding   text NOT NULL,
    digest     text NOT NULL,
    size       bigint NOT NULL,
    -- Incremented by every write (compare-and-swap).
    version    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX rlm_store_vars_digest_idx ON rlm_store_vars (digest);

-- A run variable taken from the store is pinned to the blob it had at
-- submit time; its type and encoding say how the worker loads it.
ALTER TABLE rlm_run_vars
    ADD COLUMN type     text NOT NULL DEFAULT '',
    ADD COLUMN encoding text NOT NULL DEFAULT '';
