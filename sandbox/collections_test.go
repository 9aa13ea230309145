package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDictSubclassEquality: OrderedDict, Counter and defaultdict compare
// equal to a dict (and to each other) with the same items whatever the
// order; only two OrderedDicts compare their order (CPython 3.11).
func TestDictSubclassEquality(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{"OrderedDict(a=1) == {'a': 1}", "True"},
		{"{'a': 1} == OrderedDict(a=1)", "True"},
		{"OrderedDict(a=1, b=2) == {'b': 2, 'a': 1}", "True"},
		{"OrderedDict(a=1, b=2) != {'b': 2, 'a': 1}", "False"},
		{"OrderedDict(a=1, b=2) == Counter(b=2, a=1)", "True"},
		{"Counter(b=2, a=1) == OrderedDict(a=1, b=2)", "True"},
		{"OrderedDict(a=1, b=2) == OrderedDict(b=2, a=1)", "False"},
		{"OrderedDict(a=1, b=2) != OrderedDict(b=2, a=1)", "True"},
		{"OrderedDict(a=1, b=2) == OrderedDict(a=1, b=2)", "True"},
		{"Counter(a=1) == {'a': 1}", "True"},
		{"{'a': 1} != Counter(a=1)", "False"},
		{"Counter(a=1) == {'a': 2}", "False"},
		{"defaultdict(int, a=1) == {'a': 1}", "True"},
		{"defaultdict(int, a=1) == OrderedDict(a=1)", "True"},
		{"Counter(a=1) == [('a', 1)]", "False"},
		{"OrderedDict(a=1) == 1", "False"},
		{"[OrderedDict(a=1)] == [{'a': 1}]", "True"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got := run(t, "from collections import OrderedDict, Counter, defaultdict\nprint("+tt.expr+")")
			assert.Equal(t, tt.want+"\n", got)
		})
	}
}
