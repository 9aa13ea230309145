// Package rlmctx (folder context/) turns user data into externalized context
// variables: typed values with deterministic summaries and size limits, and
// the persistent variable store that keeps them across processes and runs.
//
// Import it under the alias rlmctx everywhere:
//
//	import rlmctx "github.com/rlmhq/rlm/context"
//
// # Variables
//
// The root model never sees a variable's value, only its [Variable.Summary]
// (at most [MaxSummaryTokens] per line) as rendered by
// [ExternalizedContext.VariableSummaries]. Values are plain Go values:
// string, bool, nil, int64, *big.Int, float64, []any and the ordered
// [*Dict]. [LoadSource] reads them from text, JSON, JSON Lines and CSV
// files, directories, stdin or the [Store]; [FromSession] externalizes a
// saved session. [ExternalizedContext.CheckSizeLimits] and
// [ExternalizedContext.AutoChunk] apply the size limits of [SizeConfig].
//
// A JSON document loaded by [LoadVar] keeps its text
// ([Variable.Document]) and is only outlined (size, items' sizes, type):
// its Go value, read with [Variable.GoValue], is made from the text when
// needed, and a host that decodes the text into its own values (the
// sandbox) calls [Variable.Release] so that no Go copy stays beside them.
// A host that makes its values next anyway (rlm exec, rlm run) hands
// LoadVar a builder of them ([LoadOptions].Values): the document is then
// parsed once, for its outline and the host's values, which the host
// takes with [Variable.TakeValues]. A summary of a large document decodes
// only the items it reads (the head), and a resumed run's check of its
// inputs hashes the text ([Variable.WriteDocument]), not the values.
//
// # Store
//
// A [Store] keeps values under arbitrary string keys. With a directory,
// each persisted key has two files:
//
//	KEY.meta.json         metadata: the Ref, encoding, value file name
//	KEY.v-RANDOM.txt      the value as raw text (strings), or
//	KEY.v-RANDOM.json     the value as JSON (everything else)
//
// where KEY is the key with every byte outside [a-z0-9_.-] written %XX
// (so keys cannot escape the directory). A write goes to a temporary file,
// is fsynced and renamed to a fresh value file, then the metadata file is
// replaced the same way under an exclusive lock on DIR/.lock (flock), which
// also makes SetIfVersion atomic across processes. A process killed at any
// point leaves the previous value intact; its leftovers are removed by the
// next OpenStore. Opening reads only metadata; large text values are
// memory-mapped on first Get. Get, Ref, Has and List see what other
// processes wrote to the directory since.
package rlmctx
