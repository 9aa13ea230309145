package runs

// Config is the configuration a run was started with, as run.json
// records it (Meta.Config) and the trajectory's run_start event carries
// it: the one typed record that rlm run and rlm serve both fill, and the
// steward reads back. It never holds a secret: the base URL's query
// values are redacted and the API key is only said to be set.
type Config struct {
	// Server is set for runs started by rlm serve.
	Server         bool     `json:"server,omitempty"`
	BaseURL        string   `json:"base_url"`
	Model          string   `json:"model"`
	SubModel       string   `json:"sub_model"`
	EmbeddingModel string   `json:"embedding_model"`
	APIKeySet      bool     `json:"api_key_set"`
	Vars           []string `json:"vars"`
	// Session is rlm run's --session file.
	Session string `json:"session,omitempty"`
	Output  string `json:"output"`
	// Protocol, Summarizer, Record and Replay are rlm run's flags.
	Protocol   string `json:"protocol,omitempty"`
	Summarizer string `json:"summarizer,omitempty"`
	Record     string `json:"record,omitempty"`
	Replay     string `json:"replay,omitempty"`

	MaxIterations      int     `json:"max_iterations"`
	ChildIterations    int     `json:"child_iterations"`
	MaxTotalIterations int     `json:"max_total_iterations"`
	MaxErrors          int     `json:"max_errors"`
	HistoryTokens      int     `json:"history_tokens"`
	MaxDepth           int     `json:"max_depth"`
	MaxLLMCalls        int     `json:"max_llm_calls"`
	MaxTokens          int     `json:"max_tokens"`
	MaxCostUSD         float64 `json:"max_cost_usd"`
	// Timeout and StepTimeout are durations as Go prints them ("10m0s").
	Timeout string `json:"timeout"`
	// MaxActiveTime is the active-time budget, as Go prints it ("" for none).
	MaxActiveTime string `json:"max_active_time,omitempty"`

	MaxSteps          uint64 `json:"max_steps"`
	StepTimeout       string `json:"step_timeout"`
	MaxMemory         int64  `json:"max_memory"`
	MaxSessionMemory  int64  `json:"max_session_memory,omitempty"`
	MaxRecursion      int    `json:"max_recursion,omitempty"`
	MaxOutputBytes    int64  `json:"max_output_bytes,omitempty"`
	ObservationTokens int    `json:"observation_tokens"`

	// Meta is the meta document's path ("" for none), MetaNotesTokens
	// its lessons' token budget.
	Meta            string `json:"meta"`
	MetaNotesTokens int    `json:"meta_notes_tokens"`

	// The context size limits of rlm run (see rlmctx.SizeConfig).
	WarnSize       int64 `json:"warn_size,omitempty"`
	ChunkThreshold int64 `json:"chunk_threshold,omitempty"`
	ChunkSize      int64 `json:"chunk_size,omitempty"`
	MaxContextSize int64 `json:"max_context_size,omitempty"`
}
