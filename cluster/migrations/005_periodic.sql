-- When each cluster-wide periodic task last began (DB.Due): a task that
-- every process ticks for runs once per period across the cluster.
CREATE TABLE rlm_periodic (
    name    text        PRIMARY KEY,
    last_at timestamptz NOT NULL
);
