// Package rlmctx (folder context/) turns user data into externalized context
// variables: typed values with deterministic summaries and size limits, and
// the persistent variable store that keeps them across processes and runs.
//
// Import it under the alias rlmctx everywhere:
//
//	import rlmctx "github.com/rlmhq/rlm/context"
//
// The root model never sees a variable's value, only its [Variable.Summary]
// as rendered by [ExternalizedContext.VariableSummaries]. Values are plain Go
// values (see [Dict]); [LoadSource] reads them from files, directories, stdin
// or the [Store].
package rlmctx
