// Package server serves Recursive Language Model runs over HTTP: an
// OpenAI-compatible endpoint (POST /v1/chat/completions, POST
// /v1/responses, GET /v1/models),
// so applications written for the OpenAI API get RLM answers over large
// context with no code change; a run API for long jobs (POST /v1/runs,
// GET /v1/runs/{id}, its events as Server-Sent Events, its trajectory, its
// live page in the trajectory viewer, DELETE to cancel); the variable store
// (/v1/vars); health and readiness probes; and Prometheus metrics
// (GET /metrics).
//
// One [Server] shares one model client, so one scheduler and rate limiter
// bound the requests in flight to the upstream endpoint for all runs, and
// one ledger counts the usage of every run (per-run budgets are held by a
// ledger of each run). Each run gets its own sandbox sessions with the
// configured limits, so a run that loops or allocates without bound is
// stopped by its own limits without affecting the others.
//
// Requests carry the RLM-specific options in an extra top-level field,
// "rlm": {"variables": {NAME: VALUE}, "output": SCHEMA, budgets...}.
// Strings become text variables, other JSON values typed variables, and
// "store:KEY" loads the store's value. Budgets in a request can only lower
// the server's caps.
//
// Secrets (the server's bearer token and the upstream API key) are
// redacted from trajectories, results, errors and logs.
package server
