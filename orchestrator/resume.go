package orchestrator

import (
	"fmt"
	"strings"
)

// EventResumeContext is the trajectory event of the resume-context message
// a resumed run that went on live past a divergence gave its model.
const EventResumeContext = "resume_context"

// Divergence is where a resumed run stopped re-executing as recorded.
type Divergence struct {
	// Run and Step are the RLM and the step whose event came out
	// differently from the recorded one.
	Run  string
	Step int
	// Reason says what differed.
	Reason string
}

// ResumeHook tells a resumed run that it diverged from its recording and
// goes on live from there (package runs: a resume from the divergence).
// The engine then gives the model one engine-authored resume-context
// message, appended after the last turn so that the earlier messages,
// and so the cached prompt prefix, stay as they were.
type ResumeHook interface {
	// TakeDivergence returns the divergence found in run, or in one of
	// its descendants, that no resume-context message answered yet, and
	// marks it answered.
	TakeDivergence(run string) (Divergence, bool)
}

// resumeData is the payload of a resume_context event.
type resumeData struct {
	DivergedRun  string `json:"diverged_run"`
	DivergedStep int    `json:"diverged_step"`
	Reason       string `json:"reason"`
	AfterStep    int    `json:"after_step"`
	Message      string `json:"message"`
}

// maxResumeLines bounds the step lines of a resume-context message (the
// oldest are left out first: the summary and outputs[N] still have them).
const maxResumeLines = 40

// takeResume adds the resume-context message after r's last turn when
// the run diverged from its recording (Config.Resume); it reports
// whether it did.
func (r *run) takeResume() bool {
	h := r.t.cfg.Resume
	if h == nil {
		return false
	}
	d, ok := h.TakeDivergence(r.id)
	if !ok {
		return false
	}
	msg := r.resumeContext(d)
	after := 0
	if n := len(r.env.Turns); n > 0 {
		last := r.env.Turns[n-1]
		last.Resume, last.tokens = msg, 0
		after = last.Step
	} else {
		r.env.Resume = msg
	}
	r.t.traj.emit(EventResumeContext, r.id, after, resumeData{DivergedRun: d.Run, DivergedStep: d.Step, Reason: d.Reason,
		AfterStep: after, Message: msg})
	return true
}

// resumeContext is the engine's resume-context message: where the run
// diverged and why, the rolling summary of its steps (the compressed
// ones' lines, then one line per step still in the history) and what the
// current step ran and printed.
func (r *run) resumeContext(d Divergence) string {
	var b strings.Builder
	where := fmt.Sprintf("step %d", d.Step)
	if d.Run != r.id {
		where = fmt.Sprintf("step %d of child run %s", d.Step, d.Run)
	}
	fmt.Fprintf(&b, "[engine] Resume context: this run was interrupted and resumed. Its steps re-ran exactly as recorded until %s, which came out differently this time (%s). ", where, d.Reason)
	b.WriteString("From there the run goes on live: outputs shown before may differ from what the code gives now, and every name in the REPL holds its current value. Check what you rely on, then continue the task.")
	var lines []string
	for _, e := range r.summary {
		lines = append(lines, e.render())
	}
	for _, t := range r.env.Turns {
		lines = append(lines, t.digest.line())
	}
	if len(lines) == 0 {
		b.WriteString("\nNo step ran before it.")
		return b.String()
	}
	if skip := len(lines) - maxResumeLines; skip > 0 {
		lines = append([]string{fmt.Sprintf("- (%d earlier lines left out: outputs[N] holds step N's full output)", skip)}, lines[skip:]...)
	}
	b.WriteString("\nSteps so far (the last is the current step):\n")
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}
