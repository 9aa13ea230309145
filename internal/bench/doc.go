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
// [Generate] builds a [Task] for a kind, a size in tokens, a seed and an item
// index; the same arguments always give the same bytes (math/rand/v2 PCG
// streams seeded from them, never the global source). Sizes are in
// o200k_base tokens and are met within a few percent by measuring the generator's bytes per token on a fixed sample;
// the token figures reported (context tokens, prompt tokens) are exact counts.
// [WriteTask] writes a task to a directory (rlm bench gen): one file per
// variable (NAME.txt, or NAME.json for a files dict), query.txt and
// task.json ([TaskFile]: query, gold answer, variable files), so other
// tools can run the same tasks (rlm run --var NAME=FILE). [Score] grades an answer against a
// task's [Gold]. [Run] runs tasks × sizes × items × modes through [Runner]s
// ([RLM] runs the orchestrator over the externalized variables, [Direct]
// pastes everything into one prompt),
// appends one [Result] per item to a JSONL file as it finishes (so a run can
// be resumed), and [WriteReport] renders report.md (mean scores with 95%
// intervals: Wilson for 0/1 scores, Student's t otherwise) and SVG charts
// of score and tokens against context size per mode.
//
// Each line of results.jsonl is a [Result]: the item key (task, size, seed,
// index, mode), the exact context tokens, score, answer and gold, failure
// kind and error, root and sub-call prompt tokens, embedding tokens
// (find_relevant, charged to the item's ledger), completion and total
// tokens, LLM calls, cost, iterations, stop reason, wall time and finish
// time. [Run] syncs the file after every line; --resume skips keys already
// present.
//
// [DryRun] calls no model: it counts the exact prompt tokens of the direct
// request and of the first RLM root request ([Prompter]) for each task and
// size.
package bench
