// Package runs keeps durable run directories: every run of rlm gets a
// directory under the runs root (by default .rlm/runs next to the variable
// store) holding
//
//	run.json          id, start time, query, config digest, status, totals
//	trajectory.jsonl  the JSONL trajectory (orchestrator/TRAJECTORY.md),
//	                  written whenever the run waits on a model, at its
//	                  end, and otherwise within 100 ms of each event
//	recording.jsonl   all model traffic as llm.Recorder writes it, appended
//	                  and fsynced as each answer arrives
//	outputs/          the full output of every step, RUN-STEP.txt
//	result.json       the final result, written when the run ends
//
// A [Root] creates, lists, removes and garbage-collects run directories;
// a [Run] is one directory being written. A run killed at any point keeps
// what it recorded, and [Root.Resume] continues it: the recorded answers
// are replayed (so the REPL state is rebuilt by re-executing the code) and
// the run goes on live from the first request that has none.
//
// Nothing secret is written: the recording and the trajectory are redacted
// by the packages that produce them, and run.json holds only what the
// caller passes (callers strip API keys from the arguments they record).
package runs
