// Package evals holds the long-horizon evaluations of the engine (make
// eval): scripted root models drive the real orchestrator and sandbox over
// 50-200 iterations while the evaluation measures goal continuity, prompt
// cache stability, compression fidelity, injection containment and
// request size, prints the figures and fails on a threshold miss. The
// evaluations run only with RLM_EVAL=1 (make eval), not in make test.
package evals
