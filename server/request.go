package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlmhq/rlm/cluster"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/repl"
)

// ModelName is the model clients ask for: "rlm" runs the server's root
// model, "rlm:MODEL" the upstream MODEL.
const ModelName = "rlm"

// chatRequest is an OpenAI chat completion request: every field of
// OpenAI's API is declared, so that each is honoured, refused
// (refusedParams) or ignored for a stated reason (ignoredParams); the
// README's table of them is checked against these lists by a test.
// Fields OpenAI may add later are accepted and ignored.
type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options"`
	N             *int           `json:"n"`
	RLM           rawRef         `json:"rlm"`

	// OpenAI parameters that apply to the root model's calls
	// (applyRootParams).
	Temperature         *float64 `json:"temperature"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	TopP                *float64 `json:"top_p"`
	Seed                rawRef   `json:"seed"`
	Stop                rawRef   `json:"stop"`
	// ResponseFormat declares the answer's shape (applyResponseFormat).
	ResponseFormat rawRef `json:"response_format"`
	// OpenAI parameters rlm does not honour: refused with a 400 naming
	// them (see refusedParams), never silently dropped.
	Tools             rawRef `json:"tools"`
	ToolChoice        rawRef `json:"tool_choice"`
	Functions         rawRef `json:"functions"`
	FunctionCall      rawRef `json:"function_call"`
	ParallelToolCalls rawRef `json:"parallel_tool_calls"`
	Logprobs          rawRef `json:"logprobs"`
	TopLogprobs       rawRef `json:"top_logprobs"`
	PresencePenalty   rawRef `json:"presence_penalty"`
	FrequencyPenalty  rawRef `json:"frequency_penalty"`
	LogitBias         rawRef `json:"logit_bias"`
	Audio             rawRef `json:"audio"`
	Modalities        rawRef `json:"modalities"`
	Prediction        rawRef `json:"prediction"`
	ReasoningEffort   rawRef `json:"reasoning_effort"`
	Verbosity         rawRef `json:"verbosity"`
	WebSearchOptions  rawRef `json:"web_search_options"`
	// OpenAI parameters accepted and used for nothing (ignoredParams).
	User             rawRef `json:"user"`
	SafetyIdentifier rawRef `json:"safety_identifier"`
	Metadata         rawRef `json:"metadata"`
	Store            rawRef `json:"store"`
	ServiceTier      rawRef `json:"service_tier"`
	PromptCacheKey   rawRef `json:"prompt_cache_key"`
}

// refusedParams are the OpenAI request fields rlm cannot honour and why;
// a request that sets one (to anything but null, false or the default)
// is refused naming it.
var refusedParams = []struct {
	name, why string
	get       func(*chatRequest) rawRef
}{
	{"tools", "an RLM's tools are its REPL helpers; the answer is the run's SUBMIT", func(r *chatRequest) rawRef { return r.Tools }},
	{"tool_choice", "an RLM's tools are its REPL helpers", func(r *chatRequest) rawRef { return r.ToolChoice }},
	{"functions", "an RLM's tools are its REPL helpers", func(r *chatRequest) rawRef { return r.Functions }},
	{"function_call", "an RLM's tools are its REPL helpers", func(r *chatRequest) rawRef { return r.FunctionCall }},
	{"parallel_tool_calls", "an RLM's tools are its REPL helpers", func(r *chatRequest) rawRef { return r.ParallelToolCalls }},
	{"logprobs", "a run's answer is built over many model calls", func(r *chatRequest) rawRef { return r.Logprobs }},
	{"top_logprobs", "a run's answer is built over many model calls", func(r *chatRequest) rawRef { return r.TopLogprobs }},
	{"presence_penalty", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.PresencePenalty }},
	{"frequency_penalty", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.FrequencyPenalty }},
	{"logit_bias", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.LogitBias }},
	{"audio", "text only", func(r *chatRequest) rawRef { return r.Audio }},
	{"modalities", "text only", func(r *chatRequest) rawRef { return r.Modalities }},
	{"prediction", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.Prediction }},
	{"reasoning_effort", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.ReasoningEffort }},
	{"verbosity", "not passed to the upstream yet", func(r *chatRequest) rawRef { return r.Verbosity }},
	{"web_search_options", "an RLM reads its context, not the web", func(r *chatRequest) rawRef { return r.WebSearchOptions }},
}

// ignoredParams are the OpenAI request fields rlm accepts and uses for
// nothing, and why.
var ignoredParams = map[string]string{
	"user":              "identifies the application's end user to OpenAI; rlm has no per-user policy",
	"safety_identifier": "identifies the application's end user to OpenAI; rlm has no per-user policy",
	"metadata":          "tags for OpenAI's stored completions; rlm records runs under /v1/runs",
	"store":             "OpenAI's stored completions; rlm records runs under /v1/runs",
	"service_tier":      "the upstream's tier is the server's setting",
	"prompt_cache_key":  "the upstream's prompt caching is driven by rlm's stable prompt prefix",
}

// unsupportedParams refuses a request that sets a refusedParams field.
func (r *chatRequest) unsupportedParams() error {
	for _, p := range refusedParams {
		switch v := strings.TrimSpace(string(p.get(r))); v {
		case "", "null", "false":
		case `["text"]`:
			if p.name == "modalities" {
				continue // the default
			}
			fallthrough
		default:
			return badRequest(p.name, "not supported by rlm (%s)", p.why)
		}
	}
	return nil
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content rawRef `json:"content"`
	Name    string `json:"name,omitempty"`
}

// rlmOptions is the "rlm" field of a request. Unknown fields are refused.
type rlmOptions struct {
	// Variables maps names to a string (text), any other JSON value
	// (typed), or "store:KEY".
	Variables rawRef `json:"variables"`
	// Output is the declared output schema, e.g. "answer:str, confidence:float"
	// or "items: list[{name: str}], total: int".
	Output string `json:"output"`
	// Per-request budgets: each can only lower the server's cap; nil
	// (absent) keeps the cap, any value given must be positive.
	MaxIterations      *int     `json:"max_iterations"`
	MaxDepth           *int     `json:"max_depth"`
	ChildIterations    *int     `json:"child_iterations"`
	MaxTotalIterations *int     `json:"max_total_iterations"`
	MaxErrors          *int     `json:"max_errors"`
	MaxLLMCalls        *int     `json:"max_llm_calls"`
	MaxTokens          *int     `json:"max_tokens"`
	MaxCostUSD         *float64 `json:"max_cost_usd"`
	TimeoutSeconds     *float64 `json:"timeout_seconds"`
	// MaxActiveSeconds is the active-time budget
	// (orchestrator.Config.MaxActiveTime) in seconds.
	MaxActiveSeconds *float64 `json:"max_active_seconds"`
}

// minRequestTimeout is the shortest run timeout a request may set: a
// shorter one would round to 0, which means no timeout.
const minRequestTimeout = time.Millisecond

// maxRequestTimeout bounds a request's run timeout on a server without
// one.
const maxRequestTimeout = 1e9 * time.Second

// rlmFields lists the fields of rlmOptions for error messages.
func rlmFields() string {
	return "variables, output, max_iterations, max_depth, child_iterations, max_total_iterations, max_errors, max_llm_calls, max_tokens, max_cost_usd, timeout_seconds, max_active_seconds"
}

// runSpec is a validated request: everything a run needs.
type runSpec struct {
	query  string
	model  string // the requested model name as the client gave it
	root   string // upstream root model ("" = the server's)
	ctx    *rlmctx.ExternalizedContext
	output string
	schema orchestrator.Schema
	format string // response_format: formatText, formatJSONSchema or formatJSONObject
	// closedOutputs: the json_schema's top level has
	// additionalProperties: false (the content keeps declared keys only).
	closedOutputs bool
	engine        orchestrator.Config
	budgets       llm.Limits
	vars          []string // variable names, for the run record
	// resp is what the response object of a POST /v1/responses repeats
	// of its request (nil for other requests).
	resp *respEcho

	stream       bool
	includeUsage bool
	// inline: the run executes on the goroutine of its request, which
	// calls job.run (see Server.start).
	inline bool
	// bodyHash is the request body's sha256, for its Idempotency-Key.
	bodyHash [32]byte
	// pinned are the "store:KEY" variables of a run submitted to a
	// cluster: the blobs they name at submit time.
	pinned []cluster.Var
	// body is the request of a detached run, kept in its run directory
	// (until then) for a resume by a later server.
	body []byte
}

// badRequest is a 400 naming the offending field.
func badRequest(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &apiError{status: 400, typ: "invalid_request_error", param: field, msg: msg, err: ErrBadRequest}
}

// rawRef is a JSON value left undecoded, like json.RawMessage but
// without its copy: it points into the request body it was decoded from
// (json.Unmarshal hands UnmarshalJSON a piece of its input), which the
// server never modifies.
type rawRef []byte

// UnmarshalJSON keeps b itself.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// decodeJSON decodes a request body, naming the field of a type error;
// strict refuses unknown fields. It decodes body in place (json.Unmarshal,
// no decoder buffer), so rawRef fields point into it.
func decodeJSON(body []byte, v any, strict bool, prefix string) error {
	if strict {
		var fields map[string]rawRef
		if err := json.Unmarshal(body, &fields); err == nil {
			known := knownFields(v)
			for name := range fields {
				if !known[name] {
					return badRequest(prefix+name, "unknown field (known fields of %s: %s)", strings.TrimSuffix(prefix, "."), rlmFields())
				}
			}
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			field := prefix + te.Field
			return badRequest(strings.TrimSuffix(field, "."), "want %s, got a JSON %s", te.Type, te.Value)
		case errors.As(err, &se):
			return badRequest(strings.TrimSuffix(prefix, "."), "malformed JSON at byte %d: %v", se.Offset, err)
		default:
			return badRequest(strings.TrimSuffix(prefix, "."), "malformed JSON: %v", err)
		}
	}
	return nil
}

// knownFields are the JSON names of the fields of the struct v points to.
func knownFields(v any) map[string]bool {
	t := reflect.TypeOf(v).Elem()
	known := map[string]bool{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	return known
}

// messageText returns a message's text: a string, or the text parts of an
// array of content parts.
func messageText(i int, raw rawRef) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	return textParts(fmt.Sprintf("messages[%d].content", i), raw, "text parts", "text")
}

// textParts reads a content field: a string, or an array of parts of
// the given types, whose texts it joins with newlines. what names the
// parts in errors.
func textParts(field string, raw rawRef, what string, types ...string) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest(field, "want a string or an array of %s", what)
	}
	var b strings.Builder
	for j, p := range parts {
		if !slices.Contains(types, p.Type) {
			return "", badRequest(fmt.Sprintf("%s[%d].type", field, j), "only %s are supported, not %q", what, p.Type)
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// parseChat validates a chat completion request (the body of POST
// /v1/chat/completions and POST /v1/runs) into a run spec.
func (s *Server) parseChat(ctx context.Context, body []byte) (*runSpec, error) {
	return s.parseRequest(ctx, body, nil)
}

// parseRequest is parseChat; pinned, when not nil, holds the files of a
// claimed cluster run's "store:KEY" variables by variable name (the
// blobs pinned at submit, fetched into the local cache).
func (s *Server) parseRequest(ctx context.Context, body []byte, pinned map[string]rlmctx.StoredFile) (*runSpec, error) {
	if err := checkJSONBudget(body, "", s.cfg.MaxJSONValues, s.cfg.MaxJSONDepth); err != nil {
		return nil, err
	}
	var req chatRequest
	if err := decodeJSON(body, &req, false, ""); err != nil {
		return nil, err
	}
	spec := &runSpec{model: req.Model, stream: req.Stream}
	if req.StreamOptions != nil {
		spec.includeUsage = req.StreamOptions.IncludeUsage
	}
	switch {
	case req.Model == "":
		return nil, badRequest("model", "required: %q (the server's root model) or %q", ModelName, ModelName+":MODEL")
	case req.Model == ModelName:
	case strings.HasPrefix(req.Model, ModelName+":") && len(req.Model) > len(ModelName)+1:
		spec.root = strings.TrimPrefix(req.Model, ModelName+":")
	default:
		return nil, &apiError{status: 404, typ: "invalid_request_error", param: "model", code: "model_not_found",
			msg: fmt.Sprintf(
				"model: %q does not exist: use %q or %q (GET /v1/models lists them)",
				req.Model,
				ModelName,
				ModelName+":MODEL",
			), err: ErrNotFound}
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n", "only 1 choice is supported")
	}
	if err := req.unsupportedParams(); err != nil {
		return nil, err
	}
	// The last user message is the query; the earlier ones are the
	// conversation.
	last := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, badRequest("messages", "no user message: the last user message is the query")
	}
	conv := make([]any, 0, last)
	for i, m := range req.Messages {
		text, err := messageText(i, m.Content)
		if err != nil {
			return nil, err
		}
		if m.Role == "" {
			return nil, badRequest(fmt.Sprintf("messages[%d].role", i), "required")
		}
		if i == last {
			spec.query = text
			continue
		}
		if i > last {
			continue // e.g. a trailing assistant prefill: not used
		}
		d := rlmctx.NewDict(2)
		d.Set("role", m.Role)
		d.Set("content", text)
		conv = append(conv, d)
	}
	if strings.TrimSpace(spec.query) == "" {
		return nil, badRequest(fmt.Sprintf("messages[%d].content", last), "the query (the last user message) is empty")
	}
	var opts rlmOptions
	if len(req.RLM) > 0 && string(req.RLM) != "null" {
		if err := decodeJSON(req.RLM, &opts, true, "rlm."); err != nil {
			return nil, err
		}
	}
	spec.ctx = rlmctx.NewContext(spec.query)
	if len(conv) > 0 {
		v, err := rlmctx.NewVariable("conversation", conv, rlmctx.WithType(rlmctx.Conversation), rlmctx.WithSource("messages"))
		if err != nil {
			return nil, badRequest("messages", "%v", err)
		}
		if err := spec.ctx.AddVariable(v); err != nil {
			return nil, badRequest("messages", "%v", err)
		}
		spec.vars = append(spec.vars, "conversation")
	}
	if err := s.addVariables(ctx, spec, opts.Variables, pinned); err != nil {
		return nil, err
	}
	spec.ctx.CheckSizeLimits(s.cfg.Sizes)
	spec.ctx.AutoChunk(s.cfg.Sizes)
	if err := s.applyOptions(spec, opts); err != nil {
		return nil, err
	}
	if err := applyResponseFormat(spec, req.ResponseFormat, opts.Output != ""); err != nil {
		return nil, err
	}
	if err := applyRootParams(spec, &req); err != nil {
		return nil, err
	}
	return spec, nil
}

// applyRootParams applies the OpenAI sampling parameters (temperature,
// max_tokens/max_completion_tokens, top_p, seed, stop) to the root
// model's calls: each step of the run and of its child RLMs, and the
// final-extraction turn. Sub-calls (llm_query, llm_query_batched, rlm_query
// at the depth limit) and history compression keep the server's settings.
func applyRootParams(spec *runSpec, req *chatRequest) error {
	if t := req.Temperature; t != nil {
		if !(*t >= 0 && *t <= 2) {
			return badRequest("temperature", "must be between 0 and 2")
		}
		f := float32(*t)
		spec.engine.Temperature = &f
	}
	for _, m := range []struct {
		name string
		v    *int
	}{{"max_completion_tokens", req.MaxCompletionTokens}, {"max_tokens", req.MaxTokens}} {
		if m.v == nil {
			continue
		}
		if *m.v < 1 {
			return badRequest(m.name, "must be at least 1")
		}
		spec.engine.MaxOutputTokens = *m.v
		break
	}
	if p := req.TopP; p != nil {
		if !(*p >= 0 && *p <= 1) {
			return badRequest("top_p", "must be between 0 and 1")
		}
		f := float32(*p)
		spec.engine.TopP = &f
	}
	if v := strings.TrimSpace(string(req.Seed)); v != "" && v != "null" {
		n, err := strconv.ParseInt(v, 10, 0)
		if err != nil {
			return badRequest("seed", "must be an integer, not %s", truncate(v, 40))
		}
		seed := int(n)
		spec.engine.Seed = &seed
	}
	stop, err := parseStop(req.Stop)
	if err != nil {
		return err
	}
	spec.engine.Stop = stop
	return nil
}

// maxStop is the most stop sequences OpenAI's API accepts.
const maxStop = 4

// parseStop validates stop: null, a string, or an array of up to 4
// strings; none may be empty.
func parseStop(raw rawRef) ([]string, error) {
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" {
		return nil, nil
	}
	var stop []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		stop = []string{one}
	} else if json.Unmarshal(raw, &stop) != nil {
		return nil, badRequest("stop", "want a string or an array of up to %d strings", maxStop)
	}
	if len(stop) > maxStop {
		return nil, badRequest("stop", "at most %d sequences, got %d", maxStop, len(stop))
	}
	for i, s := range stop {
		if s == "" {
			if len(stop) == 1 {
				return nil, badRequest("stop", "must not be empty")
			}
			return nil, badRequest("stop", "sequence %d is empty", i)
		}
	}
	if len(stop) == 0 {
		return nil, nil
	}
	return stop, nil
}

// truncate shortens s to n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// addVariables adds the rlm.variables to the run's context, in the order
// the request gives them. On a cluster replica, a "store:KEY" variable is
// only resolved to its blob (spec.pinned), which the worker that claims
// the run loads from pinned.
func (s *Server) addVariables(ctx context.Context, spec *runSpec, raw rawRef, pinned map[string]rlmctx.StoredFile) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	// raw is the request's own copy: its strings need not be copied again.
	v, err := pyjson.DecodeOwned(raw, "")
	if err != nil {
		return badRequest("rlm.variables", "%v", err)
	}
	vars, ok := v.(*rlmctx.Dict)
	if !ok {
		return badRequest("rlm.variables", "want an object of NAME: value")
	}
	for _, name := range vars.Keys() {
		val, _ := vars.Get(name)
		// The name points into the body (DecodeOwned): a copy, so that
		// the run record keeping it does not keep the whole body.
		name = strings.Clone(name)
		field := "rlm.variables." + name
		if err := rlmctx.ValidateName(name); err != nil {
			return badRequest(field, "%v", err)
		}
		if err := orchestrator.CheckVarName(name); err != nil {
			return badRequest(field, "%v", err)
		}
		if _, dup := spec.ctx.Get(name); dup {
			return badRequest(field, "the name is used twice (conversation holds the earlier messages)")
		}
		if slices.ContainsFunc(spec.pinned, func(v cluster.Var) bool { return v.Name == name }) {
			return badRequest(field, "the name is used twice")
		}
		var variable *rlmctx.Variable
		if str, ok := val.(string); ok && strings.HasPrefix(str, rlmctx.StorePrefix) {
			spec2 := rlmctx.VarSpec{Name: name, Source: str}
			// A JSON document is parsed once, for its outline and the
			// run's interpreter values (as rlm run does).
			opts := rlmctx.LoadOptions{Store: s.store, Values: repl.JSONValues}
			switch {
			case pinned != nil:
				f, ok := pinned[name]
				if !ok {
					return badRequest(field, "no blob was pinned for this variable when the run was submitted")
				}
				opts.StoredFiles = func(context.Context, string) (rlmctx.StoredFile, error) { return f, nil }
			case s.cfg.Cluster != nil:
				if err := s.pinStoreVar(ctx, spec, field, name, strings.TrimPrefix(str, rlmctx.StorePrefix)); err != nil {
					return err
				}
				spec.vars = append(spec.vars, name)
				continue
			}
			variable, _, err = rlmctx.LoadVar(ctx, spec2, opts)
			if errors.Is(err, rlmctx.ErrNotFound) {
				return storeKeyNotFound(field, err)
			}
		} else {
			typ := rlmctx.Text
			if _, isStr := val.(string); !isStr {
				typ = rlmctx.InferType(val)
			}
			variable, err = rlmctx.NewVariable(name, val, rlmctx.WithType(typ), rlmctx.WithSource("request"))
		}
		if err != nil {
			return badRequest(field, "%v", err)
		}
		if err := spec.ctx.AddVariable(variable); err != nil {
			return badRequest(field, "%v", err)
		}
		spec.vars = append(spec.vars, name)
	}
	return nil
}

// lowerInt applies a per-request limit v to the server's cap: nil keeps
// the cap; a value under min (0 and negatives included) or above the cap
// is refused (a request can only lower caps). capv 0 means the server
// sets no cap.
func lowerInt(field string, v *int, capv, min int) (int, error) {
	switch {
	case v == nil:
		return capv, nil
	case *v < min:
		return 0, badRequest(field, "must be >= %d (omit it to keep the server's cap)", min)
	case capv > 0 && *v > capv:
		return 0, badRequest(field, "%d is over the server's cap %d (a request can only lower it)", *v, capv)
	}
	return *v, nil
}

// applyOptions sets the run's engine configuration and budgets: the
// server's, lowered by the request.
func (s *Server) applyOptions(spec *runSpec, o rlmOptions) error {
	e := s.cfg.Engine
	spec.output = s.cfg.Output
	if o.Output != "" {
		spec.output = o.Output
	}
	schema, err := orchestrator.ParseSchema(spec.output)
	if err != nil {
		field := "rlm.output"
		if o.Output == "" {
			field = ""
		}
		return badRequest(field, "%v", err)
	}
	spec.schema = schema
	if e.MaxIterations, err = lowerInt("rlm.max_iterations", o.MaxIterations, e.MaxIterations, 1); err != nil {
		return err
	}
	if e.MaxDepth, err = lowerInt("rlm.max_depth", o.MaxDepth, e.MaxDepth, 1); err != nil {
		return err
	}
	if e.ChildMaxIterations, err = lowerInt("rlm.child_iterations", o.ChildIterations, e.ChildMaxIterations, 1); err != nil {
		return err
	}
	if e.MaxTotalIterations, err = lowerInt("rlm.max_total_iterations", o.MaxTotalIterations, e.MaxTotalIterations, 1); err != nil {
		return err
	}
	s.applyMeta(&e, firstNonEmpty(spec.root, s.cfg.LLM.Model), o.MaxIterations != nil)
	if e.MaxConsecutiveErrors, err = lowerInt("rlm.max_errors", o.MaxErrors, e.MaxConsecutiveErrors, 1); err != nil {
		return err
	}
	b := s.cfg.Budgets
	if b.MaxCalls, err = lowerInt("rlm.max_llm_calls", o.MaxLLMCalls, b.MaxCalls, 1); err != nil {
		return err
	}
	if b.MaxTokens, err = lowerInt("rlm.max_tokens", o.MaxTokens, b.MaxTokens, 1); err != nil {
		return err
	}
	if c := o.MaxCostUSD; c != nil {
		switch {
		case !(*c > 0):
			return badRequest("rlm.max_cost_usd", "must be > 0 (omit it to keep the server's cap)")
		case b.MaxCostUSD > 0 && *c > b.MaxCostUSD:
			return badRequest("rlm.max_cost_usd", "%g is over the server's cap %g (a request can only lower it)", *c, b.MaxCostUSD)
		}
		b.MaxCostUSD = *c
	}
	if t := o.TimeoutSeconds; t != nil {
		capd := e.Timeout
		if capd <= 0 {
			capd = maxRequestTimeout
		}
		switch {
		case !(*t >= minRequestTimeout.Seconds()):
			return badRequest(
				"rlm.timeout_seconds",
				"must be at least %g (1 ms; omit it to keep the server's run timeout)",
				minRequestTimeout.Seconds(),
			)
		case *t > capd.Seconds():
			return badRequest("rlm.timeout_seconds", "%g is over the server's run timeout %s (a request can only lower it)", *t, capd)
		}
		e.Timeout = time.Duration(*t * float64(time.Second))
	}
	if a := o.MaxActiveSeconds; a != nil {
		switch {
		case !(*a >= minRequestTimeout.Seconds()):
			return badRequest("rlm.max_active_seconds", "must be at least %g (1 ms; omit it to keep the server's cap)", minRequestTimeout.Seconds())
		case e.MaxActiveTime > 0 && *a > e.MaxActiveTime.Seconds():
			return badRequest(
				"rlm.max_active_seconds",
				"%g is over the server's cap %s (a request can only lower it)",
				*a,
				e.MaxActiveTime,
			)
		case *a > maxRequestTimeout.Seconds():
			return badRequest("rlm.max_active_seconds", "%g is over the longest budget a request may set (%g)", *a, maxRequestTimeout.Seconds())
		}
		e.MaxActiveTime = time.Duration(*a * float64(time.Second))
	}
	if b.MaxCostUSD > 0 {
		// A cost limit counts only priced models: refuse, as rlm run does,
		// a run whose models have no known price.
		for _, name := range []string{firstNonEmpty(spec.root, s.cfg.LLM.Model), s.subModel()} {
			if _, ok := s.cfg.Prices.Lookup(name); name != "" && !ok {
				return badRequest(
					"rlm.max_cost_usd",
					"no price is known for model %q, so a cost limit cannot be enforced; limit max_tokens instead",
					name,
				)
			}
		}
	}
	spec.engine, spec.budgets = e, b
	return nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
