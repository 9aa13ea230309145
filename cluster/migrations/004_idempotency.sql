-- Idempotency-Keys of the requests that created runs, so that a client's
-- retry reaching any replica finds the run its first attempt created.
CREATE TABLE rlm_idempotency (
    route      text        NOT NULL,
    key        text        NOT NULL,
    body_hash  bytea       NOT NULL,
    run_id     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (route, key)
);
CREATE INDEX rlm_idempotency_created ON rlm_idempotency (created_at);
