package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rlmhq/rlm/cluster/clustertest"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Responses API (POST /v1/responses, issue 27) through the official
// OpenAI Go SDK, github.com/openai/openai-go/v3.

// respClient is the official OpenAI Go SDK pointed at the server, without
// retries (a test that expects an error sees it at once).
func (ts *testServer) respClient(opts ...option.RequestOption) *oai.Client {
	c := oai.NewClient(append([]option.RequestOption{option.WithBaseURL(ts.http.URL + "/v1/"), option.WithAPIKey(canaryToken),
		option.WithMaxRetries(0)}, opts...)...)
	return &c
}

func respInput(query string) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfString: oai.String(query)}
}

// rlmOf reads the "rlm" extension of a response object.
func rlmOf(t *testing.T, r *responses.Response) rlmSummary {
	t.Helper()
	f, ok := r.JSON.ExtraFields["rlm"]
	require.True(t, ok, "the response carries rlm: %s", r.RawJSON())
	var s rlmSummary
	require.NoError(t, json.Unmarshal([]byte(f.Raw()), &s), f.Raw())
	return s
}

// TestResponsesThroughOpenAISDK: a response created with the Go SDK is a
// Responses API object: its one output message holds the answer, usage is
// the run tree's, the request's instructions, metadata, user and limits
// are echoed, instructions and the input messages (text parts) are the
// run's conversation, and temperature and max_output_tokens reach the
// root model's calls.
func TestResponsesThroughOpenAISDK(t *testing.T) {
	ts := newTestServer(t, nil)
	var hr *http.Response
	resp, err := ts.respClient().Responses.New(context.Background(), responses.ResponseNewParams{
		Model: "rlm", Input: respInput("echo hello there"),
		Temperature: oai.Float(0.5), MaxOutputTokens: oai.Int(300),
		Metadata: map[string]string{"app": "test"}, User: oai.String("u-1"),
	}, option.WithResponseInto(&hr))
	require.NoError(t, err)
	assert.Equal(t, "response", string(resp.Object))
	assert.Equal(t, responses.ResponseStatusCompleted, resp.Status)
	assert.Equal(t, "hello there", resp.OutputText())
	assert.Contains(t, resp.RawJSON(), `"output_text":"hello there"`, "output_text is on the wire too, for the Node SDK's stream helper")
	require.Len(t, resp.Output, 1)
	msg := resp.Output[0].AsMessage()
	assert.Equal(t, "message", string(msg.Type))
	assert.Equal(t, "assistant", string(msg.Role))
	assert.Equal(t, responses.ResponseOutputMessageStatusCompleted, msg.Status)
	require.Len(t, msg.Content, 1)
	assert.Equal(t, "output_text", string(msg.Content[0].Type))
	assert.Equal(t, "hello there", msg.Content[0].Text)
	assert.Empty(t, msg.Content[0].Annotations)
	assert.True(t, msg.Content[0].JSON.Annotations.Valid(), "annotations is [] on the wire")
	assert.Equal(t, "rlm", string(resp.Model))
	assert.Equal(t, map[string]string{"app": "test"}, map[string]string(resp.Metadata))
	assert.Contains(t, resp.RawJSON(), `"user":"u-1"`)
	assert.InDelta(t, 0.5, resp.Temperature, 1e-9)
	assert.Equal(t, int64(300), resp.MaxOutputTokens)
	assert.NotZero(t, resp.CreatedAt)
	assert.NotEmpty(t, hr.Header.Get("X-Request-Id"))

	sum := rlmOf(t, resp)
	assert.Equal(t, "resp_"+sum.RunID, resp.ID)
	assert.Equal(t, "msg_"+sum.RunID, msg.ID)
	assert.Equal(t, "submit", sum.StopReason)
	run := ts.waitRun(t, sum.RunID)
	require.NotNil(t, run.Usage)
	assert.Equal(t, int64(run.Usage.PromptTokens), resp.Usage.InputTokens)
	assert.Equal(t, int64(run.Usage.CompletionTokens), resp.Usage.OutputTokens)
	assert.Equal(t, int64(run.Usage.TotalTokens), resp.Usage.TotalTokens)
	assert.Positive(t, resp.Usage.TotalTokens)
	assert.True(t, resp.Usage.JSON.InputTokensDetails.Valid() && resp.Usage.JSON.OutputTokensDetails.Valid(), resp.RawJSON())

	calls := ts.up.Calls()
	require.Len(t, calls, 1)
	require.NotNil(t, calls[0].Temperature, string(calls[0].Body))
	assert.InDelta(t, 0.5, *calls[0].Temperature, 1e-6)
	assert.Equal(t, 300, calls[0].MaxTokens)

	// Instructions and the earlier messages are the conversation; the
	// last user message is the query.
	items := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("first question", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "conv"}}}, responses.EasyInputMessageRoleUser),
	}
	resp, err = ts.respClient().Responses.New(context.Background(), responses.ResponseNewParams{
		Model: "rlm", Instructions: oai.String("be brief"), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items},
	})
	require.NoError(t, err)
	assert.Equal(t, "be brief|first question", resp.OutputText())
	assert.Equal(t, "be brief", resp.Instructions.OfString)
}

// TestResponsesStreaming: a streamed response through the Go SDK is the
// Responses API's event sequence, numbered from 0, whose deltas (cut on
// rune boundaries) make the answer, ending with response.completed
// carrying the whole response.
func TestResponsesStreaming(t *testing.T) {
	ts := newTestServer(t, nil)
	answer := strings.Repeat("é-ü ", 200)
	stream := ts.respClient().Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "rlm", Input: respInput("echo " + answer)})
	var types []string
	var text strings.Builder
	var last responses.ResponseStreamEventUnion
	deltas := 0
	for i := 0; stream.Next(); i++ {
		ev := stream.Current()
		assert.Equal(t, int64(i), ev.SequenceNumber, ev.RawJSON())
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
		switch ev.Type {
		case "response.created", "response.in_progress":
			assert.Equal(t, responses.ResponseStatusInProgress, ev.Response.Status)
			assert.Empty(t, ev.Response.Output)
			assert.True(t, strings.HasPrefix(ev.Response.ID, "resp_"), ev.Response.ID)
		case "response.output_text.delta":
			deltas++
			assert.True(t, utf8.ValidString(ev.Delta), "a delta ends on a rune boundary")
			assert.Equal(t, int64(0), ev.OutputIndex)
			assert.Equal(t, int64(0), ev.ContentIndex)
			text.WriteString(ev.Delta)
		case "response.output_text.done":
			assert.Equal(t, answer, ev.Text)
		case "response.output_item.done":
			assert.Equal(t, answer, ev.Item.AsMessage().Content[0].Text)
		}
		last = ev
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.completed"}, types)
	assert.Greater(t, deltas, 1, "a long answer comes in several deltas")
	assert.Equal(t, answer, text.String())
	done := last.AsResponseCompleted().Response
	assert.Equal(t, responses.ResponseStatusCompleted, done.Status)
	assert.Equal(t, answer, done.OutputText())
	assert.Positive(t, done.Usage.TotalTokens)
	assert.Equal(t, "submit", rlmOf(t, &done).StopReason)
}

// TestResponsesKeepAlive: a streamed response waiting on a slow model
// sends keep-alive comments, which the SDK skips.
func TestResponsesKeepAlive(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 150*time.Millisecond), func(c *Config) { c.StreamKeepAlive = 40 * time.Millisecond })
	code, _, raw := ts.do(t, "POST", "/v1/responses", map[string]any{"model": "rlm", "input": "echo slow", "stream": true})
	require.Equal(t, 200, code)
	assert.Contains(t, string(raw), "\n: keep-alive\n\n")
	assert.Contains(t, string(raw), "event: response.completed\ndata: ")
}

// TestResponsesStructuredOutput: text.format json_schema is the run's
// output schema as chat's response_format is: the answer is the SUBMIT
// object as JSON, plain and streamed; json_object asks for one JSON
// object.
func TestResponsesStructuredOutput(t *testing.T) {
	ts := newTestServer(t, nil)
	var schema map[string]any
	require.NoError(t, json.Unmarshal([]byte(nestedSchema), &schema))
	params := responses.ResponseNewParams{Model: "rlm", Input: respInput("nested"),
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "inventory", Schema: schema, Strict: oai.Bool(true)}}}}
	want := `{"items": [{"name": "a", "file": "a.go"}, {"name": "b", "file": "b.go"}], "total": 2, "by_region": {"eu": 2}}`
	resp, err := ts.respClient().Responses.New(context.Background(), params)
	require.NoError(t, err)
	assert.JSONEq(t, want, resp.OutputText())
	assert.Equal(t, "json_schema", string(resp.Text.Format.Type))
	assert.Equal(t, "inventory", resp.Text.Format.Name)

	stream := ts.respClient().Responses.NewStreaming(context.Background(), params)
	var text strings.Builder
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.output_text.delta" {
			text.WriteString(ev.Delta)
		}
	}
	require.NoError(t, stream.Err())
	assert.JSONEq(t, want, text.String())

	// The model is shown the schema, as for chat (in the order the SDK
	// sends its keys: a Go map's, sorted).
	declared := false
	for _, c := range ts.up.Calls() {
		for _, m := range c.Messages {
			declared = declared ||
				strings.Contains(
					m.Content,
					"Declared outputs: by_region:dict[str, int], items:list[closed{file:str, name:str}], note:str?, total:int",
				)
		}
	}
	assert.True(t, declared)

	resp, err = ts.respClient().Responses.New(context.Background(), responses.ResponseNewParams{Model: "rlm", Input: respInput("jsonobj"),
		Text: responses.ResponseTextConfigParam{
			Format: responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &oai.ResponseFormatJSONObjectParam{}},
		}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a": 1, "b": [true, null]}`, resp.OutputText())
}

// TestResponsesFailure: a run that fails without an answer is a 502
// APIError when not streamed and, streamed, ends with response.failed and
// an error event that the SDK returns as the stream's error; no secret
// is in either.
func TestResponsesFailure(t *testing.T) {
	bad := newTestServer(t, func(c *Config) { c.LLM.APIKey = canaryKey + "-wrong" })
	_, err := bad.respClient().Responses.New(context.Background(), responses.ResponseNewParams{Model: "rlm", Input: respInput("echo x")})
	var apiErr *oai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
	assert.Equal(t, "run_failed", apiErr.Code)

	stream := bad.respClient().Responses.NewStreaming(
		context.Background(),
		responses.ResponseNewParams{Model: "rlm", Input: respInput("echo x")},
	)
	var types []string
	var failed responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.Type == "response.failed" {
			failed = ev.Response
		}
	}
	require.Error(t, stream.Err(), "the SDK returns the stream's error")
	assert.Contains(t, stream.Err().Error(), "failed")
	assert.Equal(t, []string{"response.created", "response.in_progress", "response.failed"}, types)
	assert.Equal(t, responses.ResponseStatusFailed, failed.Status)
	assert.Equal(t, "server_error", string(failed.Error.Code))
	assert.Contains(t, failed.Error.Message, "failed")
	assert.Equal(t, "model_error", rlmOf(t, &failed).StopReason)

	code, _, raw := bad.do(t, "POST", "/v1/responses", map[string]any{"model": "rlm", "input": "echo x", "stream": true})
	require.Equal(t, 200, code)
	assert.Contains(t, string(raw), "event: error\ndata: {")
	assert.Contains(t, string(raw), `"code":"run_failed"`)
	assert.NotContains(t, string(raw), canaryKey)
	assert.NotContains(t, string(raw), "response.completed")
}

// TestResponsesRefusedParams: what rlm cannot honour is a 400 naming the
// field (through the SDK too), never dropped; defaults are accepted; a
// bad value is named as the Responses request spells it.
func TestResponsesRefusedParams(t *testing.T) {
	ts := newTestServer(t, nil)
	_, err := ts.respClient().Responses.New(context.Background(), responses.ResponseNewParams{Model: "rlm", Input: respInput("echo x"),
		Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("lookup", map[string]any{"type": "object"}, false)}})
	var apiErr *oai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.Equal(t, "tools", apiErr.Param)
	assert.Contains(t, apiErr.Message, "not supported")

	for _, tt := range []struct {
		field string
		value any
		param string
	}{
		{"previous_response_id", "resp_123", "previous_response_id"},
		{"conversation", "conv_1", "conversation"},
		{"background", true, "background"},
		{"include", []string{"reasoning.encrypted_content"}, "include"},
		{"reasoning", map[string]any{"effort": "high"}, "reasoning"},
		{"parallel_tool_calls", true, "parallel_tool_calls"},
		{"prompt", map[string]any{"id": "pmpt_1"}, "prompt"},
		{"tool_choice", "required", "tool_choice"},
		{"text", map[string]any{"verbosity": "low"}, "text.verbosity"},
		{"text", map[string]any{"format": map[string]any{"type": "xml"}}, "text.format.type"},
		{"text", map[string]any{"format": map[string]any{"type": "json_schema", "name": "x"}}, "text.format.schema"},
		{"text", map[string]any{"format": map[string]any{"type": "json_schema", "name": "x", "schema": map[string]any{"type": "string"}}}, "text.format.schema"},
		{"max_output_tokens", 0, "max_output_tokens"},
		{"temperature", 3, "temperature"},
		{"top_p", 2, "top_p"},
		{"model", "gpt-4o", "model"},
		{"input", nil, "input"},
		{"input", []any{map[string]any{"type": "function_call_output", "call_id": "c", "output": "x"}}, "input[0].type"},
		{"input", []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_image", "image_url": "x"}}}}, "input[0].content[0].type"},
		{"input", []any{map[string]any{"role": "tool", "content": "x"}}, "input[0].role"},
		{"input", []any{map[string]any{"role": "assistant", "content": "x"}}, "input"},
		{"input", []any{map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "user", "content": "  "}}, "input[1].content"},
		{"input", "   ", "input"},
		{"rlm", map[string]any{"max_iterations": 0}, "rlm.max_iterations"},
	} {
		b := map[string]any{"model": "rlm", "input": "echo hi", tt.field: tt.value}
		code, _, raw := ts.do(t, "POST", "/v1/responses", b)
		want := 400
		if tt.field == "model" {
			want = 404
		}
		assert.Equal(t, want, code, "%s=%v: %s", tt.field, tt.value, raw)
		var e errorBody
		require.NoError(t, json.Unmarshal(raw, &e), string(raw))
		if assert.NotNil(t, e.Error.Param, string(raw)) {
			assert.Equal(t, tt.param, *e.Error.Param, "%s=%v: %s", tt.field, tt.value, raw)
			assert.True(t, strings.HasPrefix(e.Error.Message, tt.param+": "), e.Error.Message)
		}
	}
	assert.Zero(t, ts.up.Count(), "no refused request reached the upstream")

	// The defaults an SDK or the Agents SDK may send are accepted.
	code, _, raw := ts.do(t, "POST", "/v1/responses", map[string]any{"model": "rlm", "input": "echo hi",
		"tools": []any{}, "include": []any{}, "tool_choice": "auto", "parallel_tool_calls": false, "reasoning": nil,
		"previous_response_id": nil, "background": false, "store": false, "truncation": "disabled", "text": map[string]any{"format": map[string]any{"type": "text"}},
		"some_future_field": 1})
	assert.Equal(t, 200, code, string(raw))
}

// TestResponsesIdempotentRetry: a request repeated with its
// Idempotency-Key (an SDK's retry) gets the first one's run, plain or
// streamed (replayed from the start); the upstream sees one run; the key
// with another body is a 409.
func TestResponsesIdempotentRetry(t *testing.T) {
	ts := newTestServer(t, nil)
	c := ts.respClient(option.WithHeader("Idempotency-Key", "resp-key-1"))
	params := responses.ResponseNewParams{Model: "rlm", Input: respInput("sub")}
	var hr1, hr2 *http.Response
	first, err := c.Responses.New(context.Background(), params, option.WithResponseInto(&hr1))
	require.NoError(t, err)
	second, err := c.Responses.New(context.Background(), params, option.WithResponseInto(&hr2))
	require.NoError(t, err)
	assert.Equal(t, first.ID, second.ID)
	assert.Equal(t, "sub:hello", second.OutputText())
	assert.Empty(t, hr1.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, "true", hr2.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, 3, ts.up.Count(), "one run: two root calls and a sub-call")

	_, err = c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "rlm", Input: respInput("echo other")})
	var apiErr *oai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	assert.Equal(t, "idempotency_key_reused", apiErr.Code)

	sc := ts.respClient(option.WithHeader("Idempotency-Key", "resp-key-2"))
	for range 2 {
		stream := sc.Responses.NewStreaming(context.Background(), params)
		var done responses.Response
		for stream.Next() {
			if ev := stream.Current(); ev.Type == "response.completed" {
				done = ev.Response
			}
		}
		require.NoError(t, stream.Err())
		assert.Equal(t, "sub:hello", done.OutputText())
	}
	assert.Equal(t, 6, ts.up.Count(), "the streamed retry replayed the one run")
}

// TestResponsesErrorsAreOpenAIShaped: a bad token and a malformed body
// are OpenAI errors the SDK maps.
func TestResponsesErrorsAreOpenAIShaped(t *testing.T) {
	ts := newTestServer(t, nil)
	_, err := ts.respClient(option.WithAPIKey("not-the-token-0123456789")).Responses.New(context.Background(),
		responses.ResponseNewParams{Model: "rlm", Input: respInput("echo x")})
	var apiErr *oai.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	code, _, raw := ts.do(t, "POST", "/v1/responses", `{"model": "rlm", "input": `)
	assert.Equal(t, 400, code, string(raw))
	assert.Contains(t, string(raw), `"type":"invalid_request_error"`)
}

// TestReadmeResponsesFieldTable: the README's table of Responses API
// request fields lists every field the server declares, each as what the
// server does: refused fields are 400s naming them, ignored ones have a
// reason, the others are honoured.
func TestReadmeResponsesFieldTable(t *testing.T) {
	rows := readmeFieldTable(t, "## OpenAI Responses request fields (`rlm serve`)")
	known := knownFields(&respRequest{})
	delete(known, "rlm") // rlm's own extension, documented in docs/serve.md
	refused := map[string]bool{}
	for _, p := range respRefusedParams {
		refused[p.name] = true
	}
	for f := range known {
		assert.Contains(t, rows, f, "the README table misses %s", f)
	}
	ts := newTestServer(t, nil)
	for f, what := range rows {
		if !assert.True(t, known[f], "README lists %s, which respRequest does not declare", f) {
			continue
		}
		want := "honoured"
		switch {
		case refused[f]:
			want = "refused"
		case respIgnoredParams[f] != "":
			want = "ignored"
		}
		assert.Equal(t, want, what, "README row for %s", f)
		if want == "refused" {
			code, _, raw := ts.do(t, "POST", "/v1/responses", map[string]any{"model": "rlm", "input": "echo hi", f: map[string]any{"x": 1}})
			assert.Equal(t, 400, code, "%s: %s", f, raw)
			var e errorBody
			require.NoError(t, json.Unmarshal(raw, &e), string(raw))
			if assert.NotNil(t, e.Error.Param, string(raw)) {
				assert.Equal(t, f, *e.Error.Param)
			}
		}
	}
	assert.Zero(t, ts.up.Count())
}

// TestClusterResponses: in cluster mode a response is answered, plain
// and streamed, by a replica that executes nothing (the run is parsed on
// the working replica from the translated request), and its
// Idempotency-Key holds across replicas.
func TestClusterResponses(t *testing.T) {
	url := clustertest.NewDatabase(t)
	up := fakeUpstream(t, 0)
	a := clusterReplica(t, up, url, "a", true, nil)
	b := clusterReplica(t, up, url, "b", false, nil)

	resp, err := b.respClient().Responses.New(context.Background(), responses.ResponseNewParams{Model: "rlm",
		Instructions: oai.String("be brief"), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("first question", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfMessage("conv", responses.EasyInputMessageRoleUser)}}})
	require.NoError(t, err)
	assert.Equal(t, responses.ResponseStatusCompleted, resp.Status)
	assert.Equal(t, "be brief|first question", resp.OutputText(), "the worker ran the translated request: %s", resp.RawJSON())
	assert.Equal(t, "be brief", resp.Instructions.OfString)

	stream := b.respClient().Responses.NewStreaming(
		context.Background(),
		responses.ResponseNewParams{Model: "rlm", Input: respInput("echo via the cluster")},
	)
	var text strings.Builder
	var last string
	for stream.Next() {
		ev := stream.Current()
		if ev.Type == "response.output_text.delta" {
			text.WriteString(ev.Delta)
		}
		last = ev.Type
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, "via the cluster", text.String())
	assert.Equal(t, "response.completed", last)

	calls := up.Count()
	first, err := a.respClient(option.WithHeader("Idempotency-Key", "resp-cluster-1")).Responses.New(context.Background(),
		responses.ResponseNewParams{Model: "rlm", Input: respInput("echo once")})
	require.NoError(t, err)
	after := up.Count()
	assert.Greater(t, after, calls)
	var hr *http.Response
	again, err := b.respClient(option.WithHeader("Idempotency-Key", "resp-cluster-1")).Responses.New(context.Background(),
		responses.ResponseNewParams{Model: "rlm", Input: respInput("echo once")}, option.WithResponseInto(&hr))
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ID)
	assert.Equal(t, "once", again.OutputText())
	assert.Equal(t, "true", hr.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, after, up.Count(), "the repeat made no model call")
}
