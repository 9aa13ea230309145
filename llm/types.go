package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message in OpenAI's shape.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text, as the model wrote it
}

// Tool declares a function the model may call.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema
}

// Request is one chat completion request. Zero fields take the client's
// configured defaults (model, temperature, max output tokens).
type Request struct {
	Model       string    `json:"model,omitempty"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature *float32  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	// TopP is nucleus sampling's probability mass (nil = server default).
	TopP *float32 `json:"top_p,omitempty"`
	// Seed asks the server for deterministic sampling (nil = none).
	Seed *int `json:"seed,omitempty"`
	// Stop lists up to 4 sequences that end the reply (nil = none).
	Stop []string `json:"stop,omitempty"`
}

// Usage is the token usage the server reported for one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Response is a chat completion result.
type Response struct {
	// ID is the server's id of the completion ("" when it sent none).
	ID           string     `json:"id,omitempty"`
	Model        string     `json:"model"`
	Content      string     `json:"content"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	Usage        Usage      `json:"usage"`
	// FirstByte is the time from sending the request that answered to
	// the first byte of its response (the upstream's time to first byte;
	// 0 when not measured: a replayed or fake answer). Not recorded.
	FirstByte time.Duration `json:"-"`
}

// ChatModel is anything that answers chat completion requests: the HTTP
// client, a recorder or replayer wrapping one, or a test fake.
type ChatModel interface {
	Chat(ctx context.Context, req Request) (*Response, error)
}

// Embedder turns texts into embedding vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
