-- Benchmark sweeps spread over the cluster (rlm bench with a cluster
-- database): one row per sweep and one per cell; each cell is worked by
-- River jobs of kind rlm_sweep_cell (see cluster/sweeps.go).

CREATE TABLE rlm_sweeps (
    id          text PRIMARY KEY,
    -- The submitter's configuration, opaque to this package (the cell
    -- executor reads it); a re-submission must carry the same.
    config      jsonb NOT NULL,
    -- The provider the cells call, and how many cells calling it may run
    -- at once across the cluster (0: no bound beyond each worker's).
    provider    text NOT NULL DEFAULT '',
    max_running integer NOT NULL DEFAULT 0,
    cells       integer NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rlm_sweep_cells (
    sweep_id    text NOT NULL REFERENCES rlm_sweeps (id) ON DELETE CASCADE,
    cell        text NOT NULL,
    -- The cell's position in the sweep (the merged report's order).
    ord         integer NOT NULL,
    spec        jsonb NOT NULL,
    provider    text NOT NULL DEFAULT '',
    -- queued, running, done or failed.
    status      text NOT NULL DEFAULT 'queued',
    -- The fencing token of the cell's lease, as rlm_runs.epoch: every claim
    -- increments it; the heartbeat and the result's write check it.
    epoch       bigint NOT NULL DEFAULT 0,
    owner       text NOT NULL DEFAULT '',
    owners      integer NOT NULL DEFAULT 0,
    lease_until timestamptz,
    started_at  timestamptz,
    ended_at    timestamptz,
    -- The executor's result, byte for byte (written once, with the job's
    -- completion, by the owner of the current epoch).
    result      bytea,
    error       text NOT NULL DEFAULT '',
    -- The cell's latest River job: the reaper re-dispatches a queued cell
    -- whose job a dead worker fetched but never claimed the cell for.
    job_id      bigint,
    PRIMARY KEY (sweep_id, cell)
);

CREATE UNIQUE INDEX rlm_sweep_cells_ord_idx ON rlm_sweep_cells (sweep_id, ord);
CREATE INDEX rlm_sweep_cells_lease_idx ON rlm_sweep_cells (lease_until) WHERE status = 'running';
CREATE INDEX rlm_sweep_cells_provider_idx ON rlm_sweep_cells (provider) WHERE status = 'running';
