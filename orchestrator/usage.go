package orchestrator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/llm"
)

// usageNode accumulates the model usage and active time of one RLM and
// its children: what is added to a node is added to its ancestors too, so
// the root's node holds the tree's.
type usageNode struct {
	t      *tree
	parent *usageNode
	start  time.Time

	mu      sync.Mutex
	u       builtins.ChildUsage // Wall unused; see snapshot
	unknown bool                // a call's cost is unknown
	end     time.Time           // zero while running
}

// newNode registers the node of the RLM id, a child of parent (nil: the
// root), started now.
func (t *tree) newNode(id string, parent *usageNode) *usageNode {
	n := &usageNode{t: t, parent: parent, start: t.now()}
	t.mu.Lock()
	if t.nodes == nil {
		t.nodes = map[string]*usageNode{}
	}
	t.nodes[id] = n
	t.mu.Unlock()
	return n
}

// node is the usage node of the RLM id (the root's when id is unknown).
func (t *tree) node(id string) *usageNode {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.nodes[id]; ok {
		return n
	}
	return t.nodes["0"]
}

// now is Config.Now, else the real time.
func (t *tree) now() time.Time {
	if t.cfg.Now != nil {
		return t.cfg.Now()
	}
	return time.Now()
}

// addCall adds one model call's usage, cost and time.
func (n *usageNode) addCall(u llm.Usage, cost float64, known bool, d time.Duration) {
	for p := n; p != nil; p = p.parent {
		p.mu.Lock()
		p.u.Calls++
		p.u.PromptTokens += u.PromptTokens
		p.u.CompletionTokens += u.CompletionTokens
		p.u.CachedTokens += u.CachedTokens
		p.u.CostUSD += cost
		p.unknown = p.unknown || !known
		p.u.Active += d
		p.mu.Unlock()
	}
}

// addActive adds time the RLM's code ran.
func (n *usageNode) addActive(d time.Duration) {
	if d <= 0 {
		return
	}
	for p := n; p != nil; p = p.parent {
		p.mu.Lock()
		p.u.Active += d
		p.mu.Unlock()
	}
}

// finish marks the RLM ended (its wall time stops).
func (n *usageNode) finish() {
	now := n.t.now()
	n.mu.Lock()
	if n.end.IsZero() {
		n.end = now
	}
	n.mu.Unlock()
}

// snapshot is the usage so far, with the wall time to the end or now.
func (n *usageNode) snapshot() builtins.ChildUsage {
	now := n.t.now()
	n.mu.Lock()
	defer n.mu.Unlock()
	u := n.u
	u.CostKnown = u.Calls > 0 && !n.unknown
	end := n.end
	if end.IsZero() {
		end = now
	}
	u.Wall = end.Sub(n.start)
	return u
}

// active is the tree's active time so far.
func (t *tree) active() time.Duration {
	n := t.node("0")
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.u.Active
}

// checkActive refuses a model call once the tree's active time has
// reached Config.MaxActiveTime, as a budget refusal (llm.KindBudget: the
// run stops with StopBudget and resumes with a raised limit like the
// ledger's budgets).
func (t *tree) checkActive() error {
	limit := t.cfg.MaxActiveTime
	if limit <= 0 {
		return nil
	}
	if used := t.active(); used >= limit {
		return &llm.Error{
			Kind:    llm.KindBudget,
			Budget:  "active_time",
			Message: fmt.Sprintf("active time %s reached the limit %s (raise the limit or narrow the task)", used.Round(time.Millisecond), limit),
			Err:     fmt.Errorf("%w: %w", llm.ErrBudgetExceeded, ErrActiveTimeBudget),
		}
	}
	return nil
}

// usageData is a usage as the trajectory records it (child_end's usage,
// run_end's tree_usage).
type usageData struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd"`
	CostKnown        bool    `json:"cost_known"`
	WallMS           int64   `json:"wall_ms"`
	ActiveMS         int64   `json:"active_ms"`
}

func usageOf(u builtins.ChildUsage) *usageData {
	return &usageData{
		Calls: u.Calls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: u.CachedTokens,
		CostUSD: u.CostUSD, CostKnown: u.CostKnown, WallMS: u.Wall.Milliseconds(), ActiveMS: u.Active.Milliseconds(),
	}
}

// timedExec is an RLM's executor with the time its code runs (less the
// time it waits for futures) added to the RLM's active time.
type timedExec struct {
	Executor
	node *usageNode
}

func (e timedExec) Exec(ctx context.Context, code string) (*ExecResult, error) {
	start := e.node.t.now()
	res, err := e.Executor.Exec(ctx, code)
	d := e.node.t.now().Sub(start)
	if res != nil {
		d -= res.Waited
	}
	e.node.addActive(d)
	return res, err
}
