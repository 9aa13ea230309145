// Package loadtest measures what `rlm serve` adds to a model's latency and
// throughput: it starts a scripted fake upstream speaking the OpenAI wire
// format (each answer after a fixed latency), starts `rlm serve` against
// it as a child process, and drives both with the same load generator.
//
// Each served request is one run whose root model answers with one code
// block that calls llm_query once and SUBMITs the sub-model's answer: two
// upstream calls. The baseline ("direct") is the same client making those
// two upstream calls itself, one after the other, at the same
// concurrency, in the same process run. [Report] prints the served
// figures as ratios to the direct ones (throughput, added p50/p99
// latency) and the server's CPU per run, read from /proc.
//
// The command is internal/loadtest/cmd/rlm-loadtest (make loadtest); the
// package only speaks HTTP to the server and imports no engine package.
package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

// Defaults for zero Config fields.
const (
	// DefaultLatency is the fake upstream's latency per call.
	DefaultLatency = 20 * time.Millisecond
	// DefaultClients and DefaultRequests are the loaded phase.
	DefaultClients  = 64
	DefaultRequests = 640
	// DefaultSingleRequests is the one-client phase's length.
	DefaultSingleRequests = 200
	// DefaultStartTimeout bounds how long rlm serve takes to listen.
	DefaultStartTimeout = 30 * time.Second
)

// The scripted conversation: the root model's only reply calls the
// sub-model with subPrompt and SUBMITs its answer, subAnswer.
const (
	query     = "loadtest: answer with what the sub-model says"
	subPrompt = "loadtest-ping"
	subAnswer = "pong"
	rootReply = "```python\nr = llm_query(\"" + subPrompt + "\")\nSUBMIT({\"answer\": r})\n```"
)

// Phase is one measurement: Requests requests by Clients concurrent
// clients, first direct to the upstream, then through rlm serve.
type Phase struct {
	Clients  int
	Requests int
}

// Config configures [Run]. Zero fields take the defaults above.
type Config struct {
	// Command starts rlm: its first element is the executable, the rest
	// arguments before "serve" (e.g. {"bin/rlm"}). Required.
	Command []string
	// Env is added to the server's environment (e.g. GODEBUG=gctrace=1).
	Env []string
	// ServeArgs are extra rlm serve flags (e.g. --max-runs 64).
	ServeArgs []string
	// Dir is where the server keeps its store and run directories
	// ("": a temporary directory, removed after).
	Dir string
	// Latency is the fake upstream's latency per call (default 20 ms).
	Latency time.Duration
	// Phases are run in order (default: 64 clients × 640 requests, then
	// 1 client × 200 requests).
	Phases []Phase
	// ServerLog receives the server's standard error (nil: discarded).
	ServerLog io.Writer
	// ClusterDB, if set, runs the servers as replicas of the cluster whose
	// PostgreSQL database is at this URL (rlm serve --cluster-db), and
	// counts the database's writes per run.
	ClusterDB string
	// Replicas is how many rlm serve processes are started (default 1;
	// more than one needs ClusterDB); the clients take them in turn.
	Replicas int
	// UpstreamCommand, if set, runs the fake upstream as a child process
	// (as [ServeUpstream] does; rlm-loadtest runs itself with
	// -serve-upstream), so that the direct client, like rlm serve, calls a
	// model in another process, as real models are. Empty: the upstream
	// runs inside this process, where the direct client's calls never
	// wake an idle process and the served figures carry that difference.
	UpstreamCommand []string
}

func (c Config) withDefaults() Config {
	if c.Latency <= 0 {
		c.Latency = DefaultLatency
	}
	if len(c.Phases) == 0 {
		c.Phases = []Phase{{DefaultClients, DefaultRequests}, {1, DefaultSingleRequests}}
	}
	if c.ServerLog == nil {
		c.ServerLog = io.Discard
	}
	if c.Replicas < 1 {
		c.Replicas = 1
	}
	return c
}

// Stats are the latencies of one side of a phase.
type Stats struct {
	// Elapsed is the phase's wall time.
	Elapsed time.Duration
	// Latencies are the successful requests' latencies, sorted.
	Latencies []time.Duration
	// Errors counts failed requests.
	Errors int
	// FirstError is the first failure's error, if any.
	FirstError error
	// CPU is the server's CPU time over the phase, all replicas together
	// (served side only; -1 when it cannot be read).
	CPU time.Duration
	// DBWrites counts the cluster database's committed transactions and
	// written rows over the phase (served side of a cluster only; -1
	// otherwise).
	DBCommits, DBRows int64
}

// Throughput returns the successful requests per second.
func (s Stats) Throughput() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(len(s.Latencies)) / s.Elapsed.Seconds()
}

// Quantile returns the latency at quantile q (0 to 1), 0 without any.
func (s Stats) Quantile(q float64) time.Duration {
	if len(s.Latencies) == 0 {
		return 0
	}
	i := int(q * float64(len(s.Latencies)-1))
	return s.Latencies[i]
}

// Result is one phase's measurements.
type Result struct {
	Phase
	Direct, Served Stats
}

// CPUPerRun returns the server's CPU time per served request (-1 when
// unknown).
func (r Result) CPUPerRun() time.Duration {
	if r.Served.CPU < 0 || r.Requests == 0 {
		return -1
	}
	return r.Served.CPU / time.Duration(r.Requests)
}

// Run starts the fake upstream and rlm serve, runs the phases and returns
// their results. The server is stopped before Run returns.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if len(cfg.Command) == 0 {
		return nil, fmt.Errorf("%w: no rlm command", ErrConfig)
	}
	for _, p := range cfg.Phases {
		if p.Clients < 1 || p.Requests < p.Clients {
			return nil, fmt.Errorf("%w: phase of %d clients and %d requests", ErrConfig, p.Clients, p.Requests)
		}
	}
	if cfg.Replicas > 1 && cfg.ClusterDB == "" {
		return nil, fmt.Errorf("%w: %d replicas need a cluster database", ErrConfig, cfg.Replicas)
	}
	upURL, stopUp, err := startUpstream(cfg)
	if err != nil {
		return nil, err
	}
	defer stopUp()
	maxClients := 0
	for _, p := range cfg.Phases {
		maxClients = max(maxClients, p.Clients)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * maxClients, MaxIdleConnsPerHost: 2 * maxClients}}
	defer client.CloseIdleConnections()

	var srvs replicas
	defer func() { srvs.stop() }() // the replicas started, also after a failed start
	for range cfg.Replicas {
		srv, err := startServe(ctx, cfg, upURL)
		if err != nil {
			return nil, err
		}
		srvs = append(srvs, srv)
	}
	var turn atomic.Int64
	direct := func(ctx context.Context) error { return directPair(ctx, client, upURL) }
	served := func(ctx context.Context) error {
		return servedRun(ctx, client, srvs[int(turn.Add(1))%len(srvs)].url)
	}
	// Warm both paths up (connections, the server's first runs).
	for _, f := range []func(context.Context) error{direct, served} {
		if s := drive(ctx, Phase{Clients: min(maxClients, 8), Requests: 2 * min(maxClients, 8)}, f, nil); s.Errors > 0 {
			return nil, fmt.Errorf("warm-up: %w", s.FirstError)
		}
	}
	var out []Result
	for _, p := range cfg.Phases {
		r := Result{Phase: p}
		r.Direct = drive(ctx, p, direct, nil)
		r.Direct.DBCommits, r.Direct.DBRows = -1, -1
		c0, w0 := dbWrites(ctx, cfg.ClusterDB)
		r.Served = drive(ctx, p, served, srvs.cpu)
		r.Served.DBCommits, r.Served.DBRows = -1, -1
		if c1, w1 := dbWrites(ctx, cfg.ClusterDB); c0 >= 0 && c1 >= 0 {
			r.Served.DBCommits, r.Served.DBRows = c1-c0, w1-w0
		}
		if err := srvs.alive(); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// drive runs p.Requests calls of f from p.Clients goroutines; cpu, when
// not nil, reads the server's CPU time before and after.
func drive(ctx context.Context, p Phase, f func(context.Context) error, cpu func() time.Duration) Stats {
	var (
		next atomic.Int64
		mu   sync.Mutex
		s    Stats
		wg   sync.WaitGroup
	)
	s.CPU = -1
	var cpu0 time.Duration
	if cpu != nil {
		cpu0 = cpu()
	}
	start := time.Now()
	for range p.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(p.Requests) {
				t := time.Now()
				err := f(ctx)
				d := time.Since(t)
				mu.Lock()
				if err != nil {
					s.Errors++
					if s.FirstError == nil {
						s.FirstError = err
					}
				} else {
					s.Latencies = append(s.Latencies, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	s.Elapsed = time.Since(start)
	if cpu != nil {
		if c0, c1 := cpu0, cpu(); c0 >= 0 && c1 >= 0 {
			s.CPU = c1 - c0
		}
	}
	slices.Sort(s.Latencies)
	return s
}

// newUpstream is the scripted model: the root call's reply is rootReply,
// a call whose last message is subPrompt gets subAnswer; every answer
// comes after latency, with a fixed usage (no token counting).
func newUpstream(latency time.Duration) *llmtest.Server {
	up := llmtest.NewServer(nil)
	usage := &llm.Usage{PromptTokens: 100, CompletionTokens: 10}
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		r := llmtest.Reply{Content: rootReply, Delay: latency, Usage: usage}
		if n := len(c.Messages); n > 0 && c.Messages[n-1].Content == subPrompt {
			r.Content = subAnswer
		}
		return r
	})
	return up
}

// upstreamLine is the line [ServeUpstream] prints first: the base URL.
const upstreamLine = "upstream: "

// ServeUpstream serves the scripted fake upstream (each answer after
// latency) on a free loopback port, prints "upstream: URL" on w, and
// serves until ctx ends. It is the child process of
// Config.UpstreamCommand.
func ServeUpstream(ctx context.Context, w io.Writer, latency time.Duration) error {
	up := newUpstream(latency)
	defer up.Close()
	if _, err := fmt.Fprintf(w, "%s%s\n", upstreamLine, up.URL()); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// startUpstream starts the fake upstream, in this process or as
// cfg.UpstreamCommand, and returns its base URL and how to stop it.
func startUpstream(cfg Config) (string, func(), error) {
	if len(cfg.UpstreamCommand) == 0 {
		up := newUpstream(cfg.Latency)
		return up.URL(), up.Close, nil
	}
	cmd := exec.Command(cfg.UpstreamCommand[0], cfg.UpstreamCommand[1:]...)
	cmd.Stderr = cfg.ServerLog
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("%w: upstream: %w", ErrConfig, err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), upstreamLine)
	if err != nil || !ok {
		stop()
		return "", nil, fmt.Errorf("%w: upstream %q printed %q, want %q URL", ErrConfig, cfg.UpstreamCommand[0], line, upstreamLine)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return url, stop, nil
}

// directPair makes the run's two upstream calls itself: the root's (a
// system prompt and the query) and the sub-call's.
func directPair(ctx context.Context, client *http.Client, upURL string) error {
	for _, msgs := range [][]map[string]string{
		{{"role": "system", "content": "You answer with code."}, {"role": "user", "content": query}},
		{{"role": "user", "content": subPrompt}},
	} {
		if _, err := chat(ctx, client, upURL, "m", msgs); err != nil {
			return err
		}
	}
	return nil
}

// servedRun makes one run through rlm serve and checks its answer.
func servedRun(ctx context.Context, client *http.Client, serveURL string) error {
	got, err := chat(ctx, client, serveURL, "rlm", []map[string]string{{"role": "user", "content": query}})
	if err != nil {
		return err
	}
	if got != subAnswer {
		return fmt.Errorf("%w: answer %q, want %q", ErrRequest, got, subAnswer)
	}
	return nil
}

// chat posts a chat completion to base (ending in /v1) and returns the
// answer's content.
func chat(ctx context.Context, client *http.Client, base, model string, msgs []map[string]string) (string, error) {
	body, err := json.Marshal(map[string]any{"model": model, "messages": msgs})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrRequest, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrRequest, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: status %d: %s", ErrRequest, resp.StatusCode, bytes.TrimSpace(b))
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &cr); err != nil || len(cr.Choices) == 0 {
		return "", fmt.Errorf("%w: not a chat completion: %.200s", ErrRequest, b)
	}
	return cr.Choices[0].Message.Content, nil
}

// replicas are the running rlm serve processes.
type replicas []*serveProc

// cpu is the CPU time of all replicas (-1 if one cannot be read).
func (rs replicas) cpu() time.Duration {
	var sum time.Duration
	for _, r := range rs {
		c := r.cpu()
		if c < 0 {
			return -1
		}
		sum += c
	}
	return sum
}

func (rs replicas) alive() error {
	for _, r := range rs {
		if err := r.alive(); err != nil {
			return err
		}
	}
	return nil
}

func (rs replicas) stop() {
	for _, r := range rs {
		r.stop()
	}
}

// serveProc is the running rlm serve.
type serveProc struct {
	cmd    *exec.Cmd
	url    string // base URL, ending in /v1
	dir    string // removed at stop when temporary
	exited chan struct{}
	err    error // the process's exit, once exited is closed
}

var listeningRE = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// startServe starts rlm serve on a free loopback port and waits until it
// listens.
func startServe(ctx context.Context, cfg Config, upURL string) (*serveProc, error) {
	p := &serveProc{exited: make(chan struct{})}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "rlm-loadtest-")
		if err != nil {
			return nil, err
		}
		dir, p.dir = d, d
	}
	args := append(append([]string{}, cfg.Command[1:]...), "serve", "--addr", "127.0.0.1:0",
		"--base-url", upURL, "--model", "m", "--api-key", "sk-loadtest-unused", "--store", dir+"/store", "--runs-dir", dir+"/runs")
	if cfg.ClusterDB != "" {
		args = append(args, "--cluster-db", cfg.ClusterDB)
	}
	args = append(args, cfg.ServeArgs...)
	p.cmd = exec.Command(cfg.Command[0], args...)
	p.cmd.Env = append(os.Environ(), cfg.Env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		p.removeDir()
		return nil, fmt.Errorf("%w: %w", ErrServe, err)
	}
	addr := make(chan string, 1)
	var head bytes.Buffer // the log until it listens, for the error
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		found := false
		for sc.Scan() {
			line := sc.Text()
			if !found {
				if m := listeningRE.FindStringSubmatch(line); m != nil {
					found = true
					addr <- m[1]
				} else if head.Len() < 4096 {
					head.WriteString(line + "\n")
				}
			}
			fmt.Fprintln(cfg.ServerLog, line)
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	timer := time.NewTimer(DefaultStartTimeout)
	defer timer.Stop()
	select {
	case a := <-addr:
		p.url = "http://" + a + "/v1"
		return p, nil
	case <-p.exited:
		p.removeDir()
		return nil, fmt.Errorf("%w: exited before listening (%v): %s", ErrServe, p.err, strings.TrimSpace(head.String()))
	case <-timer.C:
	case <-ctx.Done():
	}
	p.stop()
	return nil, fmt.Errorf("%w: not listening after %s", ErrServe, DefaultStartTimeout)
}

// alive returns an error when the server has exited.
func (p *serveProc) alive() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%w: exited during the test: %v", ErrServe, p.err)
	default:
		return nil
	}
}

// cpu returns the server's CPU time so far (-1 when unknown).
func (p *serveProc) cpu() time.Duration { return procCPU(p.cmd.Process.Pid) }

// stop ends the server (SIGTERM, then kill) and removes its temporary
// directory.
func (p *serveProc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.removeDir()
}

func (p *serveProc) removeDir() {
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}
