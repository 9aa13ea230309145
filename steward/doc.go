// Package steward is the batch job that keeps the meta document (package
// meta) from the evidence of kept runs: it is never part of a run.
//
//   - [Collect] reads kept run directories (package runs) and their
//     trajectories, and rlm bench results, into per-run [Evidence]: errors
//     by kind with the code that caused them, iterations lost, nudges,
//     final-extraction and budget stops, compressions, prefix changes,
//     tokens, cost and scores.
//   - [Propose] turns evidence into [Proposal]s (add or retire a lesson,
//     change a recommended budget), each with its evidence and expected
//     effect; [Steward.Apply] validates and applies them as a new version
//     of the document and appends one line per change to the changelog;
//     [Steward.Rollback] restores an earlier version, also logged.
//   - [Drift] compares recent runs with the ones before and reports the
//     statistically significant shifts, with the meta versions and models
//     in force.
//   - [Backfill] migrates older trajectories and recomputes their derived
//     data, idempotently, writing a copy and swapping it in atomically.
//
// Text from a run (context, model output, tool output, error messages) is
// evidence only: it is classified into fixed kinds and never becomes
// lesson text, which comes from the meta package's templates alone.
// Nor can a run pick lessons by what it raises: only errors the engine
// classified (the exec event's origin "engine") count toward a lesson, an
// exception the code raised itself is shown but never counted, and
// support is counted in distinct runs, not occurrences.
package steward
