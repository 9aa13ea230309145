// Package bench compares externalized context (the RLM orchestrator) against
// direct prompting (the whole context pasted into one prompt) on tasks
// generated offline and deterministically from a seed, each with an exact
// gold answer and scorer.
//
// Four task kinds are built in (see [Kinds]):
//
//   - niah: one needle (a key phrase and a number) at a random depth in
//     filler text; exact match (the S-NIAH shape).
//   - aggregate: records "date | user_id | text" whose text is a question of
//     one of six categories; count, compare and most/least-frequent questions,
//     optionally within a date range or a user set; numeric answers score
//     0.75^|error|, labels score exact match (the OOLONG trec_coarse shape).
//   - pairs: over the same records, all pairs of users that both satisfy a
//     condition; F1 over the pair set (the OOLONG-Pairs shape).
//   - files: a generated source tree as a files dict; where is a function
//     defined and which files call it; exact match.
//
// [Generate] builds a [Task] for a kind, a size in tokens and a seed; the same
// arguments always give the same bytes. [Score] grades an answer against a
// task's [Gold]. [Run] runs tasks × sizes × items × modes through [Runner]s
// (a [Direct] runner is included; the RLM runner adapts the orchestrator),
// appends one [Result] per item to a JSONL file as it finishes (so a run can
// be resumed), and [WriteReport] renders report.md and SVG charts.
package bench
