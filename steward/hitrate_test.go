package steward

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/meta"
)

// TestHitRate: each run counts the lessons of the meta version it ran
// with (a snapshot for an older version, model scopes kept), and a lesson
// is a hit where the run shows what it is about.
func TestHitRate(t *testing.T) {
	st, _ := newSteward(t)
	lesson := func(tmpl, model string) meta.Lesson {
		text, err := meta.LessonText(tmpl, meta.Params{})
		require.NoError(t, err)
		return meta.Lesson{ID: meta.LessonID(tmpl, model), Template: tmpl, Model: model, Text: text, Since: 1}
	}
	v1 := meta.New()
	v1.Version, v1.Lessons = 1, []meta.Lesson{lesson("no_async", "")}
	v2 := meta.New()
	v2.Version, v2.Lessons = 2, []meta.Lesson{lesson("no_async", ""), lesson("name_error", "gpt-b")}
	require.NoError(t, os.MkdirAll(st.HistoryDir(), 0o755))
	require.NoError(t, v1.Save(st.snapshotPath(1)))
	require.NoError(t, v2.Save(st.MetaPath))

	evs := []Evidence{
		{Run: "a", MetaVersion: 0, Errors: map[string]int{"no_async": 1}},                   // no lessons in force
		{Run: "b", MetaVersion: 1, Model: "gpt-a", Errors: map[string]int{"no_async": 2}},   // no_async: hit
		{Run: "c", MetaVersion: 1, Model: "gpt-a"},                                          // no_async: miss
		{Run: "d", MetaVersion: 2, Model: "gpt-a", Errors: map[string]int{"name_error": 1}}, // no_async miss; name_error not for gpt-a
		{Run: "e", MetaVersion: 2, Model: "gpt-b", Errors: map[string]int{"name_error": 1}}, // no_async miss, name_error hit
		{Run: "f", MetaVersion: 2, Model: "gpt-b", Raised: map[string]int{"name_error": 3}}, // raised by the code: not a hit
		{Run: "g", MetaVersion: 7, Errors: map[string]int{"no_async": 1}},                   // no such version: skipped
		// The prompt's own list wins: no_async only (the notes budget
		// left name_error out).
		{Run: "h", MetaVersion: 2, Model: "gpt-b", Lessons: []string{"no_async"}, Errors: map[string]int{"name_error": 1}},
	}
	hr := st.HitRate(evs)
	assert.Equal(t, 8, hr.Pairs)
	assert.Equal(t, 2, hr.Hits)
	assert.InDelta(t, 2.0/8, hr.Rate, 1e-9)
	assert.Equal(t, []LessonHits{
		{Lesson: "name_error@gpt-b", Template: "name_error", Runs: 2, Hits: 1},
		{Lesson: "no_async", Template: "no_async", Runs: 6, Hits: 1},
	}, hr.Lessons)
	assert.Equal(t, HitRate{Lessons: []LessonHits{}}, st.HitRate(nil))
}
