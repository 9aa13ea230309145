// Package viewer renders rlm trajectories (the JSON Lines schema of
// orchestrator/TRAJECTORY.md) as one self-contained HTML page: data, CSS and
// JavaScript inline, no request to any network address (the page's Content
// Security Policy forbids them), so the file opens anywhere, offline.
//
// The page reads events. [Write] embeds them in the file; [WriteLive] writes
// the same page without events, reading them from a server-sent events URL
// instead (the live view of a running run), so the file and the live view
// are one code path. Write with two trajectories renders them side by side.
//
// The page renders lazily: step bodies are built when they come near the
// viewport and long texts show a bounded excerpt, so a trajectory of
// thousands of steps and tens of megabytes of output opens fast. A large
// trajectory, embedded gzipped, is inflated and parsed as a stream: the
// first steps show before the rest is read, with "loading N of M events"
// in the bar until it is (the body's data-ready attribute is set at the
// first render, data-loaded once every event is in).
package viewer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// KnownVersion is the trajectory schema version this viewer renders
// (orchestrator.TrajectoryVersion). Events of other versions are rendered as
// well as possible under a message naming their version.
const KnownVersion = 1

//go:embed assets/page.html assets/viewer.css assets/viewer.js
var assets embed.FS

// Trajectory is a trajectory read by [Read], ready to render.
type Trajectory struct {
	// Info describes what was read.
	Info Info
	// lines are the events, one JSON object each: a complete line of the
	// file as it is, or an unparsable one wrapped as an "rlm.unparsed"
	// event carrying the raw text.
	lines [][]byte
}

// Info describes a trajectory file.
type Info struct {
	// Name is the name shown in the page (usually the file name).
	Name string `json:"name"`
	// Size is the size of the input in bytes.
	Size int64 `json:"size"`
	// Events is the number of complete events.
	Events int `json:"events"`
	// Truncated says the last line has no end and is not a complete
	// event (a crashed run, or one still being written);
	// TruncatedBytes is its length.
	Truncated      bool `json:"truncated,omitempty"`
	TruncatedBytes int  `json:"truncated_bytes,omitempty"`
	// BadLines counts lines (other than a cut last line) that are not JSON
	// objects; the page shows them raw.
	BadLines int `json:"bad_lines,omitempty"`
	// Versions counts the events of each schema version ("v").
	Versions map[int]int `json:"versions,omitempty"`
}

// Read reads a trajectory. It fails with [ErrEmpty] for an input without
// events and with [ErrNotTrajectory] when the first line is not a
// trajectory event (a JSON object with a numeric "v" and a string "type").
// Later lines that are not JSON objects are kept and shown raw; a cut last
// line is reported in Info.Truncated.
func Read(name string, r io.Reader) (*Trajectory, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("viewer: reading %s: %w", name, err)
	}
	t := &Trajectory{Info: Info{Name: name, Size: int64(len(data)), Versions: map[int]int{}}}
	first := true
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		complete := false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, complete = data[:i], data[i+1:], true
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var head struct {
			V    *float64 `json:"v"`
			Type *string  `json:"type"`
		}
		err := json.Unmarshal(line, &head)
		isObject := err == nil && line[0] == '{'
		if first {
			first = false
			if !isObject || head.V == nil || head.Type == nil {
				return nil, fmt.Errorf(
					"%w: line 1 of %s is not a trajectory event (a JSON object with \"v\" and \"type\", as rlm run writes): %s",
					ErrNotTrajectory,
					name,
					excerpt(line, 80),
				)
			}
		}
		if isObject {
			if head.V != nil {
				t.Info.Versions[int(*head.V)]++
			}
			t.lines = append(t.lines, line)
			t.Info.Events++
			continue
		}
		if !complete {
			t.Info.Truncated, t.Info.TruncatedBytes = true, len(line)
		} else {
			t.Info.BadLines++
		}
		msg := "not a JSON object"
		if err != nil {
			msg = err.Error()
		}
		wrapped, _ := json.Marshal(
			map[string]any{"type": "rlm.unparsed", "line": lineNo, "raw": excerpt(line, 4000), "error": msg, "truncated": !complete},
		)
		t.lines = append(t.lines, wrapped)
	}
	if t.Info.Events == 0 {
		return nil, fmt.Errorf("%w: %s has no events", ErrEmpty, name)
	}
	return t, nil
}

// excerpt is b as text, cut to n bytes.
func excerpt(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// config is the page's configuration (the rlm-config element).
type config struct {
	KnownVersion int    `json:"known_version"`
	Title        string `json:"title,omitempty"`
	Sources      []Info `json:"sources"`
	EventsURL    string `json:"events_url,omitempty"`
}

// Write writes the page of one trajectory, or of two side by side, with
// their events embedded. The page makes no network request.
func Write(w io.Writer, trajs ...*Trajectory) error {
	switch len(trajs) {
	case 1, 2:
	default:
		return fmt.Errorf("%w: got %d", ErrSources, len(trajs))
	}
	cfg := config{KnownVersion: KnownVersion}
	title := trajs[0].Info.Name
	if len(trajs) == 2 {
		title += " vs " + trajs[1].Info.Name
	}
	for _, t := range trajs {
		cfg.Sources = append(cfg.Sources, t.Info)
	}
	cfg.Title = title
	return writePage(w, title, "'none'", cfg, func(bw *bufio.Writer) error {
		for i, t := range trajs {
			if t.Info.Size < compressAbove {
				fmt.Fprintf(bw, "<script type=\"application/x-ndjson\" id=\"rlm-src-%d\">\n", i)
				for _, line := range t.lines {
					writeScriptSafe(bw, line)
					bw.WriteByte('\n')
				}
				bw.WriteString("</script>\n")
				continue
			}
			// A large trajectory is embedded gzipped (base64): the page
			// loads several times faster and the file is smaller; the
			// page streams it through the browser's DecompressionStream,
			// rendering the first events before the rest are parsed.
			fmt.Fprintf(bw, "<script type=\"application/x-ndjson+gzip+base64\" id=\"rlm-src-%d\">\n", i)
			b64 := base64.NewEncoder(base64.StdEncoding, bw)
			zw, err := gzip.NewWriterLevel(b64, gzip.BestSpeed)
			if err != nil {
				return err
			}
			for _, line := range t.lines {
				zw.Write(line)
				zw.Write([]byte{'\n'})
			}
			if err := zw.Close(); err != nil {
				return err
			}
			if err := b64.Close(); err != nil {
				return err
			}
			bw.WriteString("\n</script>\n")
		}
		return nil
	})
}

// compressAbove is the size of a trajectory from which Write embeds it
// gzipped; smaller ones stay readable in the page's source.
const compressAbove = 2 << 20

// Live configures the live page of [WriteLive].
type Live struct {
	// Title names the run in the page.
	Title string
	// EventsURL is the server-sent events stream of the run's trajectory,
	// same origin (relative to the page's URL, or absolute): each message,
	// unnamed or named "trajectory", carries one event (a line of the
	// trajectory). Message ids, when set, let the page skip events it has
	// already seen after a reconnection; an "end" event closes the stream.
	// A page opened with "#token=TOKEN" in its address reads the stream
	// with fetch, sending the token as a bearer Authorization header (the
	// fragment never reaches a server), and takes the token out of the
	// address at once.
	EventsURL string
}

// WriteLive writes the page that renders a run live from its event stream
// (for a server such as rlm serve). It is the page of [Write], reading its
// events from l.EventsURL instead of the file; the page requests nothing
// else.
func WriteLive(w io.Writer, l Live) error {
	if l.EventsURL == "" {
		return ErrNoEventsURL
	}
	title := l.Title
	if title == "" {
		title = "live run"
	}
	cfg := config{KnownVersion: KnownVersion, Title: title, Sources: []Info{{Name: title}}, EventsURL: l.EventsURL}
	return writePage(w, title, "'self'", cfg, func(*bufio.Writer) error { return nil })
}

func writePage(w io.Writer, title, connect string, cfg config, data func(*bufio.Writer) error) error {
	page, err := assets.ReadFile("assets/page.html")
	if err != nil {
		return err
	}
	css, _ := assets.ReadFile("assets/viewer.css")
	js, _ := assets.ReadFile("assets/viewer.js")
	cfgJSON, err := json.Marshal(cfg) // escapes <, > and &
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	rest := string(page)
	for rest != "" {
		i := strings.Index(rest, "{{")
		if i < 0 {
			bw.WriteString(rest)
			break
		}
		bw.WriteString(rest[:i])
		j := strings.Index(rest[i:], "}}")
		key := rest[i+2 : i+j]
		rest = rest[i+j+2:]
		switch key {
		case "TITLE":
			bw.WriteString(html.EscapeString("rlm · " + title))
		case "CONNECT":
			bw.WriteString(connect)
		case "CSS":
			bw.Write(css)
		case "JS":
			bw.Write(js)
		case "CONFIG":
			bw.Write(cfgJSON)
		case "DATA":
			if err := data(bw); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// writeScriptSafe writes a JSON line inside a <script> element: "<" (which
// a valid JSON line has only inside strings) becomes \u003c, so no
// "</script>" or "<!--" can end or change the element.
func writeScriptSafe(w *bufio.Writer, line []byte) {
	for {
		i := bytes.IndexByte(line, '<')
		if i < 0 {
			w.Write(line)
			return
		}
		w.Write(line[:i])
		w.WriteString(`\u003c`)
		line = line[i+1:]
	}
}
