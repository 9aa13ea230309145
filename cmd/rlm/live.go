package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// liveView prints a run as it happens (rlm run -v): it reads the
// trajectory's events as the engine writes them and shows each step's
// code and output, the sub-calls it made, child runs indented by depth,
// SUBMITs and the end of each run. Colour is used on a terminal unless
// NO_COLOR is set or TERM is dumb.
type liveView struct {
	w      io.Writer
	colour bool
	buf    []byte
}

// liveOutputLines is how many lines of a step's output the live view
// shows (the trajectory and rlm view have all of it).
const liveOutputLines = 12

func newLiveView(env *cliEnv) *liveView {
	return &liveView{w: env.stderr, colour: useColour(env, env.stderr)}
}

// useColour reports whether w takes ANSI colours: a terminal, with
// neither NO_COLOR (https://no-color.org) set nor TERM=dumb.
func useColour(env *cliEnv, w io.Writer) bool {
	return isTerminal(w) && env.getenv("NO_COLOR") == "" && env.getenv("TERM") != "dumb"
}

// Write receives trajectory JSONL; whole lines are printed as they come.
func (v *liveView) Write(p []byte) (int, error) {
	v.buf = append(v.buf, p...)
	for {
		i := bytes.IndexByte(v.buf, '\n')
		if i < 0 {
			break
		}
		v.event(v.buf[:i])
		v.buf = v.buf[i+1:]
	}
	return len(p), nil
}

// liveEvent is the part of a trajectory event the live view reads.
type liveEvent struct {
	Type string `json:"type"`
	Run  string `json:"run"`
	Step int    `json:"step"`
	Data struct {
		// exec
		Code, Output, Error  string
		Truncated, Submitted bool
		// sub_call
		Kind, Model, Prompt, Response string
		LatencyMS                     int64 `json:"latency_ms"`
		Memoized                      bool
		// child_start, child_end
		Child, Query, Mode, Answer string
		// submit
		Valid bool
		// run_end
		StopReason string `json:"stop_reason"`
		Iterations int
		DurationMS int64 `json:"duration_ms"`
	} `json:"data"`
}

const (
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

func (v *liveView) paint(code, s string) string {
	if !v.colour {
		return s
	}
	return code + s + ansiReset
}

func (v *liveView) event(line []byte) {
	var e liveEvent
	if json.Unmarshal(line, &e) != nil {
		return
	}
	// Text from the model, the data and the sub-models is escaped before
	// the view adds its own colour codes.
	d := &e.Data
	for _, f := range []*string{&e.Run, &d.Code, &d.Output, &d.Error, &d.Kind, &d.Model, &d.Prompt, &d.Response, &d.Child, &d.Query, &d.Mode, &d.Answer, &d.StopReason} {
		*f = termSafe(v.w, *f)
	}
	ind := strings.Repeat("  ", strings.Count(e.Run, ".")/2) // a child of step S of run P is P.S.HASH
	var b strings.Builder
	switch e.Type {
	case "exec":
		fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiBold, fmt.Sprintf("── %s step %d ──", runLabel(e.Run), e.Step)))
		for _, l := range strings.Split(strings.TrimRight(d.Code, "\n"), "\n") {
			fmt.Fprintf(&b, "%s%s %s\n", ind, v.paint(ansiDim, "│"), v.paint(ansiCyan, l))
		}
		out := strings.Split(strings.TrimRight(d.Output, "\n"), "\n")
		if d.Output != "" {
			for i, l := range out {
				if i == liveOutputLines {
					fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiDim, fmt.Sprintf("… %d more lines (rlm view shows them)", len(out)-i)))
					break
				}
				fmt.Fprintf(&b, "%s%s %s\n", ind, v.paint(ansiDim, "→"), l)
			}
		}
		if d.Error != "" {
			fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiRed, "✗ "+lastLine(d.Error)))
		}
	case "sub_call":
		what := d.Kind
		if d.Model != "" {
			what += " (" + d.Model + ")"
		}
		res := oneLine(d.Response, 100)
		switch {
		case d.Error != "":
			res = v.paint(ansiRed, "failed: "+oneLine(d.Error, 100))
		case d.Memoized:
			res += " (memoized)"
		}
		fmt.Fprintf(&b, "%s  ↳ %s %d ms: %s → %s\n", ind, what, d.LatencyMS, oneLine(d.Prompt, 60), res)
	case "child_start":
		fmt.Fprintf(&b, "%s  ⤷ rlm_query %s (%s): %s\n", ind, runLabel(d.Child), d.Mode, oneLine(d.Query, 100))
	case "child_end":
		fmt.Fprintf(&b, "%s  ⤶ %s answered: %s\n", ind, runLabel(d.Child), oneLine(d.Answer, 100))
	case "submit":
		if d.Valid {
			fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiGreen, "SUBMIT accepted"))
		} else {
			fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiRed, "SUBMIT rejected: "+oneLine(d.Error, 200)))
		}
	case "reply":
		if d.Error != "" {
			fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiRed, "model call failed: "+oneLine(d.Error, 200)))
		}
	case "run_end":
		fmt.Fprintf(&b, "%s%s\n", ind, v.paint(ansiBold, fmt.Sprintf("── %s ended: %s after %d iteration(s), %.1f s ──",
			runLabel(e.Run), d.StopReason, d.Iterations, float64(d.DurationMS)/1000)))
	default:
		return
	}
	io.WriteString(v.w, b.String())
}

// runLabel names a run for the live view: the root, or a child by its id.
func runLabel(id string) string {
	if id == "0" || id == "" {
		return "root"
	}
	return "child " + id
}

// lastLine is the last non-empty line of s (a traceback's exception).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
