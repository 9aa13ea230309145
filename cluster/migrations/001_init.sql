-- rlm's system of record for cluster mode (package cluster).

-- One row per run: the request, its state, its lease and its outcome.
CREATE TABLE rlm_runs (
    id               text PRIMARY KEY,
    status           text NOT NULL,
    query            text NOT NULL DEFAULT '',
    model            text NOT NULL DEFAULT '',
    spec             bytea,
    config           jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    ended_at         timestamptz,
    -- The fencing token: every Claim (and Release) increments it, and every
    -- write of an owner checks it.
    epoch            bigint NOT NULL DEFAULT 0,
    owner            text NOT NULL DEFAULT '',
    lease_until      timestamptz,
    -- How many owners claimed the run (a Release gives its claim back).
    owners           integer NOT NULL DEFAULT 0,
    cancel_requested boolean NOT NULL DEFAULT false,
    result           bytea,
    error            text NOT NULL DEFAULT '',
    stop_reason      text NOT NULL DEFAULT '',
    iterations       integer NOT NULL DEFAULT 0,
    tokens           integer NOT NULL DEFAULT 0,
    cost_usd         double precision,
    -- The last seq allocated in rlm_events and rlm_recording: an append
    -- increments it in the guarded UPDATE that checks the epoch, so
    -- appends to one run are serialized by the row lock and commit in seq
    -- order (a reader never sees seq n+1 without seq n).
    event_seq        bigint NOT NULL DEFAULT 0,
    recording_seq    bigint NOT NULL DEFAULT 0,
    -- The River job inserted by Submit (cancelled with a queued run).
    job_id           bigint
);

CREATE INDEX rlm_runs_created_idx ON rlm_runs (created_at DESC, id DESC);
CREATE INDEX rlm_runs_status_created_idx ON rlm_runs (status, created_at DESC, id DESC);
CREATE INDEX rlm_runs_lease_idx ON rlm_runs (lease_until) WHERE status = 'running';

-- The trajectory: one JSONL event a row; seq is the SSE event id.
CREATE TABLE rlm_events (
    run_id text NOT NULL REFERENCES rlm_runs (id) ON DELETE CASCADE,
    seq    bigint NOT NULL,
    epoch  bigint NOT NULL,
    line   bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- The recording of model answers that a takeover replays.
CREATE TABLE rlm_recording (
    run_id text NOT NULL REFERENCES rlm_runs (id) ON DELETE CASCADE,
    seq    bigint NOT NULL,
    epoch  bigint NOT NULL,
    line   bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- The blobs a run's variables reference (for the blob GC).
CREATE TABLE rlm_run_vars (
    run_id text NOT NULL REFERENCES rlm_runs (id) ON DELETE CASCADE,
    name   text NOT NULL,
    digest text NOT NULL,
    size   bigint NOT NULL,
    PRIMARY KEY (run_id, name)
);

CREATE INDEX rlm_run_vars_digest_idx ON rlm_run_vars (digest);

-- The blobs known to the store.
CREATE TABLE rlm_blobs (
    digest     text PRIMARY KEY,
    size       bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used  timestamptz NOT NULL DEFAULT now()
);
