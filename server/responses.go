package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// POST /v1/responses is OpenAI's Responses API over the same runs as
// POST /v1/chat/completions: the request is translated into a chat
// completion request (parseResponses), which is what the run is parsed
// from, kept with and resumed from, and the run is rendered as a
// response object or its event stream (respShape).

// respRequest is an OpenAI Responses API request: as chatRequest, every
// field of the API is declared, so that each is honoured, refused
// (respRefusedParams) or ignored for a stated reason
// (respIgnoredParams); the README's table of them is checked against
// these lists by a test. Fields OpenAI may add later are accepted and
// ignored.
type respRequest struct {
	Model        string  `json:"model"`
	Input        rawRef  `json:"input"`
	Instructions *string `json:"instructions"`
	Stream       bool    `json:"stream"`
	RLM          rawRef  `json:"rlm"`
	// Text holds the answer's format (text.format, as chat's
	// response_format).
	Text            rawRef   `json:"text"`
	MaxOutputTokens *int     `json:"max_output_tokens"`
	Temperature     *float64 `json:"temperature"`
	TopP            *float64 `json:"top_p"`
	// ToolChoice is accepted as "none" or "auto": there are no tools.
	ToolChoice rawRef `json:"tool_choice"`
	// Echoed in the response object, used for nothing else.
	Metadata map[string]string `json:"metadata"`
	User     *string           `json:"user"`
	// OpenAI parameters rlm does not honour: refused with a 400 naming
	// them (see respRefusedParams), never silently dropped.
	Tools              rawRef `json:"tools"`
	ParallelToolCalls  rawRef `json:"parallel_tool_calls"`
	PreviousResponseID rawRef `json:"previous_response_id"`
	Conversation       rawRef `json:"conversation"`
	Background         rawRef `json:"background"`
	Include            rawRef `json:"include"`
	Reasoning          rawRef `json:"reasoning"`
	Prompt             rawRef `json:"prompt"`
	ContextManagement  rawRef `json:"context_management"`
	// OpenAI parameters accepted and used for nothing
	// (respIgnoredParams).
	SafetyIdentifier     rawRef `json:"safety_identifier"`
	Store                rawRef `json:"store"`
	ServiceTier          rawRef `json:"service_tier"`
	PromptCacheKey       rawRef `json:"prompt_cache_key"`
	PromptCacheRetention rawRef `json:"prompt_cache_retention"`
	StreamOptions        rawRef `json:"stream_options"`
	Truncation           rawRef `json:"truncation"`
}

// respRefusedParams are the Responses request fields rlm cannot honour
// and why; a request that sets one (to anything but null, false, an
// empty array or object) is refused naming it.
var respRefusedParams = []struct {
	name, why string
	get       func(*respRequest) rawRef
}{
	{"tools", "an RLM's tools are its REPL helpers; the answer is the run's SUBMIT", func(r *respRequest) rawRef { return r.Tools }},
	{"parallel_tool_calls", "an RLM's tools are its REPL helpers", func(r *respRequest) rawRef { return r.ParallelToolCalls }},
	{
		"previous_response_id",
		"rlm keeps no conversation state between responses: send the earlier turns in input",
		func(r *respRequest) rawRef { return r.PreviousResponseID },
	},
	{
		"conversation",
		"rlm keeps no conversation state between responses: send the earlier turns in input",
		func(r *respRequest) rawRef { return r.Conversation },
	},
	{"background", "use POST /v1/runs for a run that outlives the request", func(r *respRequest) rawRef { return r.Background }},
	{"include", "a response carries only its message (and the run in rlm)", func(r *respRequest) rawRef { return r.Include }},
	{"reasoning", "not passed to the upstream yet", func(r *respRequest) rawRef { return r.Reasoning }},
	{"prompt", "prompt templates are stored by OpenAI", func(r *respRequest) rawRef { return r.Prompt }},
	{
		"context_management",
		"rlm manages the root model's context itself (history compression)",
		func(r *respRequest) rawRef { return r.ContextManagement },
	},
}

// respIgnoredParams are the Responses request fields rlm accepts and
// uses for nothing (metadata and user are echoed in the response), and
// why.
var respIgnoredParams = map[string]string{
	"metadata":               "tags for OpenAI's stored responses, echoed in the response; rlm records runs under /v1/runs",
	"user":                   "identifies the application's end user to OpenAI, echoed in the response; rlm has no per-user policy",
	"safety_identifier":      "identifies the application's end user to OpenAI; rlm has no per-user policy",
	"store":                  "OpenAI's stored responses; rlm records runs under /v1/runs",
	"service_tier":           "the upstream's tier is the server's setting",
	"prompt_cache_key":       "the upstream's prompt caching is driven by rlm's stable prompt prefix",
	"prompt_cache_retention": "the upstream's prompt caching is driven by rlm's stable prompt prefix",
	"stream_options":         "include_obfuscation: rlm's stream is not padded",
	"truncation":             "rlm compresses the root model's history itself",
}

// unsupportedParams refuses a request that sets a respRefusedParams
// field, or a tool_choice other than none or auto.
func (r *respRequest) unsupportedParams() error {
	for _, p := range respRefusedParams {
		switch v := strings.TrimSpace(string(p.get(r))); v {
		case "", "null", "false", "[]", "{}":
		default:
			return badRequest(p.name, "not supported by rlm (%s)", p.why)
		}
	}
	switch v := strings.TrimSpace(string(r.ToolChoice)); v {
	case "", "null", `"none"`, `"auto"`:
	default:
		return badRequest("tool_choice", `only "none" or "auto" (an RLM's tools are its REPL helpers)`)
	}
	return nil
}

// respEcho is what a response object repeats of its request.
type respEcho struct {
	instructions    *string
	maxOutputTokens *int
	temperature     *float64
	topP            *float64
	metadata        map[string]string
	user            *string
	toolChoice      string
	format          json.RawMessage
}

// respText is the request's text field.
type respText struct {
	Format    rawRef `json:"format"`
	Verbosity rawRef `json:"verbosity"`
}

// respFormat is text.format: chat's response_format, flattened.
type respFormat struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Schema      rawRef `json:"schema"`
	Strict      *bool  `json:"strict"`
}

// respMessageIn is a message of the chat completion request a Responses
// request is translated into.
type respMessageIn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// respAsChat is the chat completion request a Responses request is
// translated into.
type respAsChat struct {
	Model               string          `json:"model"`
	Messages            []respMessageIn `json:"messages"`
	Stream              bool            `json:"stream,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	RLM                 json.RawMessage `json:"rlm,omitempty"`
}

// parseResponses validates a Responses API request (the body of POST
// /v1/responses) into a run spec, through the chat completion request it
// translates into (returned too): the run is the same as chat's, and a
// bad field is named as the Responses request spells it.
func (s *Server) parseResponses(ctx context.Context, body []byte) (*runSpec, []byte, error) {
	if err := checkJSONBudget(body, "", s.cfg.MaxJSONValues, s.cfg.MaxJSONDepth); err != nil {
		return nil, nil, err
	}
	var req respRequest
	if err := decodeJSON(body, &req, false, ""); err != nil {
		return nil, nil, err
	}
	if err := req.unsupportedParams(); err != nil {
		return nil, nil, err
	}
	chat := respAsChat{
		Model:               req.Model,
		Stream:              req.Stream,
		Temperature:         req.Temperature,
		TopP:                req.TopP,
		MaxCompletionTokens: req.MaxOutputTokens,
	}
	if len(req.RLM) > 0 {
		chat.RLM = json.RawMessage(req.RLM)
	}
	echo := &respEcho{instructions: req.Instructions, maxOutputTokens: req.MaxOutputTokens, temperature: req.Temperature, topP: req.TopP,
		metadata: req.Metadata, user: req.User, toolChoice: "auto"}
	if v := strings.TrimSpace(string(req.ToolChoice)); v == `"none"` {
		echo.toolChoice = "none"
	}
	var err error
	if chat.ResponseFormat, echo.format, err = textFormat(req.Text); err != nil {
		return nil, nil, err
	}
	// src names, for each message, where the Responses request has it.
	var src []string
	if req.Instructions != nil && *req.Instructions != "" {
		chat.Messages = append(chat.Messages, respMessageIn{Role: "system", Content: *req.Instructions})
		src = append(src, "instructions")
	}
	msgs, msrc, err := inputMessages(req.Input)
	if err != nil {
		return nil, nil, err
	}
	chat.Messages = append(chat.Messages, msgs...)
	src = append(src, msrc...)
	chatBody, err := json.Marshal(chat)
	if err != nil {
		return nil, nil, err
	}
	spec, err := s.parseChat(ctx, chatBody)
	if err != nil {
		return nil, nil, respParam(err, src)
	}
	spec.resp = echo
	return spec, chatBody, nil
}

// textFormat translates text.format into chat's response_format (nil
// for none) and the format a response object echoes.
func textFormat(raw rawRef) (json.RawMessage, json.RawMessage, error) {
	plain := json.RawMessage(`{"type":"text"}`)
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" {
		return nil, plain, nil
	}
	var text respText
	if err := decodeJSON(raw, &text, false, "text."); err != nil {
		return nil, nil, err
	}
	if v := strings.TrimSpace(string(text.Verbosity)); v != "" && v != "null" {
		return nil, nil, badRequest("text.verbosity", "not supported by rlm (not passed to the upstream yet)")
	}
	if v := strings.TrimSpace(string(text.Format)); v == "" || v == "null" {
		return nil, plain, nil
	}
	var f respFormat
	if err := decodeJSON(text.Format, &f, false, "text.format."); err != nil {
		return nil, nil, err
	}
	var rf any
	switch f.Type {
	case "text", formatJSONObject:
		rf = map[string]string{"type": f.Type}
	case formatJSONSchema:
		if f.Name == "" {
			return nil, nil, badRequest("text.format.name", "required: the name of the answer's schema")
		}
		js := map[string]any{"name": f.Name, "schema": json.RawMessage(f.Schema)}
		if len(f.Schema) == 0 {
			delete(js, "schema")
		}
		if f.Description != "" {
			js["description"] = f.Description
		}
		if f.Strict != nil {
			js["strict"] = *f.Strict
		}
		rf = map[string]any{"type": f.Type, "json_schema": js}
	default:
		return nil, nil, badRequest("text.format.type", "%q is not one of text, json_object, json_schema", f.Type)
	}
	b, err := json.Marshal(rf)
	if err != nil {
		return nil, nil, err
	}
	return b, json.RawMessage(text.Format), nil
}

// respItem is an item of a Responses request's input: only messages.
type respItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content rawRef `json:"content"`
}

// inputMessages translates input (a string, or an array of messages
// whose content is a string or text parts) into chat messages, and
// names where each came from.
func inputMessages(raw rawRef) ([]respMessageIn, []string, error) {
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" {
		return nil, nil, badRequest("input", "required: the query, as a string or an array of messages")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []respMessageIn{{Role: "user", Content: one}}, []string{"input"}, nil
	}
	var items []rawRef
	if json.Unmarshal(raw, &items) != nil {
		return nil, nil, badRequest("input", "want a string or an array of messages")
	}
	msgs := make([]respMessageIn, 0, len(items))
	src := make([]string, 0, len(items))
	for i, b := range items {
		field := fmt.Sprintf("input[%d]", i)
		var it respItem
		if err := decodeJSON(b, &it, false, field+"."); err != nil {
			return nil, nil, err
		}
		if it.Type != "" && it.Type != "message" {
			return nil, nil, badRequest(
				field+".type",
				"%q items are not supported: rlm takes messages (its tools are its REPL helpers, and it stores no items)",
				it.Type,
			)
		}
		switch it.Role {
		case "user", "system", "developer", "assistant":
		case "":
			return nil, nil, badRequest(field+".role", "required: user, system, developer or assistant")
		default:
			return nil, nil, badRequest(field+".role", "%q is not one of user, system, developer, assistant", it.Role)
		}
		text, err := itemText(field+".content", it.Content)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, respMessageIn{Role: it.Role, Content: text})
		src = append(src, field)
	}
	return msgs, src, nil
}

// itemText returns a message item's text: a string, or its text parts
// (input_text, or output_text in an assistant's earlier answer) joined
// by newlines.
func itemText(field string, raw rawRef) (string, error) {
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" {
		return "", badRequest(field, "required: a string or an array of input_text parts")
	}
	return textParts(field, raw, "text parts (input_text, output_text)", "input_text", "output_text")
}

// respParam renames the field a 400 of the translated chat request names
// to the Responses request's: src[i] is where messages[i] came from.
func respParam(err error, src []string) error {
	ae, ok := err.(*apiError)
	if !ok || ae.param == "" {
		return err
	}
	rename := func(p string) string {
		for _, m := range []struct{ from, to string }{
			{"response_format.json_schema.", "text.format."},
			{"response_format.", "text.format."},
			{"response_format", "text.format"},
			{"max_completion_tokens", "max_output_tokens"},
		} {
			if rest, ok := strings.CutPrefix(p, m.from); ok {
				return m.to + rest
			}
		}
		if rest, ok := strings.CutPrefix(p, "messages["); ok {
			n, tail, _ := strings.Cut(rest, "]")
			if i, err := strconv.Atoi(n); err == nil && i < len(src) {
				tail = strings.TrimPrefix(tail, ".content")
				if src[i] == "instructions" || src[i] == "input" {
					return src[i]
				}
				return src[i] + ".content" + tail
			}
		}
		if p == "messages" {
			return "input"
		}
		return p
	}
	p := rename(ae.param)
	if p == ae.param {
		return err
	}
	out := *ae
	out.param = p
	if rest, ok := strings.CutPrefix(ae.msg, ae.param+": "); ok {
		out.msg = p + ": " + rest
	}
	return &out
}

func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	s.serveRun(w, r, "responses", s.parseResponses, respShape{s})
}

// respShape renders runs as Responses API response objects.
type respShape struct{ s *Server }

// respObject is a Responses API response object, with the run in "rlm".
type respObject struct {
	ID                string                 `json:"id"`
	Object            string                 `json:"object"`
	CreatedAt         int64                  `json:"created_at"`
	CompletedAt       *int64                 `json:"completed_at"`
	Status            string                 `json:"status"`
	Error             *respError             `json:"error"`
	IncompleteDetails *respIncompleteDetails `json:"incomplete_details"`
	Instructions      *string                `json:"instructions"`
	MaxOutputTokens   *int                   `json:"max_output_tokens"`
	Metadata          map[string]string      `json:"metadata"`
	Model             string                 `json:"model"`
	Output            []respMessage          `json:"output"`
	// OutputText is the answer, as the SDKs' output_text convenience
	// (which they compute, but not every helper of the Node SDK does).
	OutputText         string      `json:"output_text"`
	ParallelToolCalls  bool        `json:"parallel_tool_calls"`
	PreviousResponseID *string     `json:"previous_response_id"`
	Store              bool        `json:"store"`
	Temperature        *float64    `json:"temperature"`
	Text               respTextOut `json:"text"`
	ToolChoice         string      `json:"tool_choice"`
	Tools              []struct{}  `json:"tools"`
	TopP               *float64    `json:"top_p"`
	Truncation         string      `json:"truncation"`
	Usage              *respUsage  `json:"usage"`
	User               *string     `json:"user,omitempty"`
	RLM                any         `json:"rlm"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type respIncompleteDetails struct {
	Reason string `json:"reason"`
}

type respTextOut struct {
	Format json.RawMessage `json:"format"`
}

// respMessage is the output message of a response.
type respMessage struct {
	Type    string     `json:"type"`
	ID      string     `json:"id"`
	Status  string     `json:"status"`
	Role    string     `json:"role"`
	Content []respPart `json:"content"`
}

// respPart is an output_text part of the output message.
type respPart struct {
	Type        string     `json:"type"`
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
	Logprobs    []struct{} `json:"logprobs"`
}

// respUsage is the Responses API's usage object: the whole run tree's.
type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

func respUsageOf(r *RunResult) *respUsage {
	u := &respUsage{}
	if r.Usage != nil {
		u.InputTokens, u.OutputTokens, u.TotalTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.TotalTokens
		u.InputTokensDetails.CachedTokens = r.Usage.CachedTokens
	}
	return u
}

// Response statuses.
const (
	respInProgress = "in_progress"
	respCompleted  = "completed"
	respIncomplete = "incomplete"
	respFailed     = "failed"
)

// object is the response object of run id: in progress while res is
// nil, else the finished run's: completed for a run that submitted,
// incomplete (reason max_output_tokens, as chat's finish reason
// "length") for one a limit or a cancel cut short with an answer, failed
// for one that failed without an answer.
func object(id string, created time.Time, spec *runSpec, res *RunResult) *respObject {
	e := spec.resp
	if e == nil {
		e = &respEcho{toolChoice: "auto", format: json.RawMessage(`{"type":"text"}`)}
	}
	o := &respObject{ID: "resp_" + id, Object: "response", CreatedAt: created.Unix(), Status: respInProgress,
		Instructions: e.instructions, MaxOutputTokens: e.maxOutputTokens, Metadata: e.metadata, Model: spec.model,
		Output: []respMessage{}, Temperature: e.temperature, Text: respTextOut{Format: e.format}, ToolChoice: e.toolChoice,
		Tools: []struct{}{}, TopP: e.topP, Truncation: "disabled", User: e.user, RLM: map[string]string{"run_id": id}}
	if o.Metadata == nil {
		o.Metadata = map[string]string{}
	}
	if res == nil {
		return o
	}
	o.Usage, o.RLM = respUsageOf(res), summaryOf(res)
	if res.Ended > 0 {
		o.CompletedAt = &res.Ended
	}
	switch {
	case res.Status == StateFailed && res.Answer == "":
		o.Status = respFailed
		o.Error = &respError{Code: "server_error", Message: runFailed(id, res).msg}
		return o
	case res.Status == StateDone:
		o.Status = respCompleted
	default:
		o.Status = respIncomplete
		o.IncompleteDetails = &respIncompleteDetails{Reason: "max_output_tokens"}
	}
	o.OutputText = content(spec, res)
	o.Output = []respMessage{outputMessage(id, o.Status, o.OutputText)}
	return o
}

// outputMessage is the response's one output message.
func outputMessage(id, status, text string) respMessage {
	return respMessage{Type: "message", ID: "msg_" + id, Status: status, Role: "assistant",
		Content: []respPart{{Type: "output_text", Text: text, Annotations: []struct{}{}, Logprobs: []struct{}{}}}}
}

// answer answers a Responses request with the finished run: a run that
// failed without an answer is a 502, as a chat completion's.
func (rs respShape) answer(w http.ResponseWriter, r *http.Request, id string, created time.Time, spec *runSpec, res *RunResult) {
	noteRun(r.Context(), id, usageTotal(res), res.CostUSD)
	if res.Status == StateFailed && res.Answer == "" {
		rs.s.writeError(w, runFailed(id, res))
		return
	}
	writeJSON(w, 200, object(id, created, spec, res))
}

// stream starts a streamed response.
func (rs respShape) stream(sse *sse, id string, created time.Time, spec *runSpec) runStream {
	return &respStream{out: sse, id: id, created: created, spec: spec}
}

// respStream renders a run as the Responses API's events, each with its
// sequence_number: response.created and response.in_progress, then, once
// the run ended, the output message (output_item.added,
// content_part.added, output_text.delta..., output_text.done,
// content_part.done, output_item.done) and response.completed or
// response.incomplete; a run that failed without an answer ends with
// response.failed and an error event carrying a top-level "error", which
// the OpenAI SDKs raise. The run's progress is not sent (the Responses
// API has no event for it: GET /v1/runs/{id}/events has it); keep-alive
// comments keep the stream open meanwhile.
type respStream struct {
	out     *sse
	id      string
	created time.Time
	spec    *runSpec
	seq     int
}

// send sends an event named by its type, numbered.
func (rs *respStream) send(typ string, fields map[string]any) bool {
	fields["type"] = typ
	fields["sequence_number"] = rs.seq
	rs.seq++
	b, err := json.Marshal(fields)
	if err != nil {
		return false
	}
	return rs.out.raw("event: "+typ+"\ndata: "+string(b)+"\n\n") == nil
}

func (rs *respStream) begin() bool {
	o := object(rs.id, rs.created, rs.spec, nil)
	return rs.send("response.created", map[string]any{"response": o}) &&
		rs.send("response.in_progress", map[string]any{"response": o})
}

// progress sends nothing but a keep-alive comment when the stream has
// been silent for the keep-alive interval.
func (rs *respStream) progress(*progress) bool {
	if time.Since(rs.out.last) < rs.out.keepAlive {
		return true
	}
	return rs.out.raw(": keep-alive\n\n") == nil
}

func (rs *respStream) end(r *http.Request, res *RunResult) {
	noteRun(r.Context(), res.ID, usageTotal(res), res.CostUSD)
	o := object(rs.id, rs.created, rs.spec, res)
	if o.Status == respFailed {
		e := runFailed(rs.id, res)
		if rs.send("response.failed", map[string]any{"response": o}) {
			rs.fail(e.typ, e.code, e.msg, summaryOf(res))
		}
		return
	}
	msg := o.Output[0]
	text := msg.Content[0].Text
	item := map[string]any{"output_index": 0, "item_id": msg.ID, "content_index": 0}
	with := func(k string, v any) map[string]any {
		m := map[string]any{k: v}
		for kk, vv := range item {
			m[kk] = vv
		}
		return m
	}
	added := msg
	added.Status, added.Content = respInProgress, []respPart{}
	empty := msg.Content[0]
	empty.Text = ""
	ok := rs.send("response.output_item.added", map[string]any{"output_index": 0, "item": added}) &&
		rs.send("response.content_part.added", with("part", empty)) &&
		pieces(text, func(d string) bool {
			m := with("delta", d)
			m["logprobs"] = []struct{}{}
			return rs.send("response.output_text.delta", m)
		})
	if !ok {
		return
	}
	done := with("text", text)
	done["logprobs"] = []struct{}{}
	typ := "response.completed"
	if o.Status == respIncomplete {
		typ = "response.incomplete"
	}
	_ = rs.send("response.output_text.done", done) &&
		rs.send("response.content_part.done", with("part", msg.Content[0])) &&
		rs.send("response.output_item.done", map[string]any{"output_index": 0, "item": msg}) &&
		rs.send(typ, map[string]any{"response": o})
}

// fail sends the error event that ends a failed stream: the Responses
// API's (code, message, param) and a top-level "error" object, for which
// the OpenAI SDKs raise an error.
func (rs *respStream) fail(typ, code, msg string, summary any) {
	m := map[string]any{"code": code, "message": msg, "param": nil,
		"error": streamErrorBody{Message: msg, Type: typ, Code: code}}
	if summary != nil {
		m["rlm"] = summary
	}
	rs.send("error", m)
}

func (rs *respStream) broken(typ, code, msg string) { rs.fail(typ, code, msg, nil) }
