package starlark

// rlm: Python iterates a list by index, so that a loop sees the
// elements appended to the list while it runs (and stops early if
// elements are removed); Starlark's list iterator instead forbids
// mutation. NewLiveListIterator is that iteration, for the sandbox's
// PyOps Iterable hook, and the interpreter's ITERJMP steps it inline,
// as it does a range.

type liveListIterator struct {
	l *List
	i int
}

// NewLiveListIterator returns an iterator over l by index: each step
// yields the element at the next index of l as it is then, and the
// iteration ends at the first index past l's length.
func NewLiveListIterator(l *List) Iterator { return &liveListIterator{l: l} }

func (it *liveListIterator) Next(p *Value) bool {
	if it.i >= len(it.l.elems) {
		return false
	}
	*p = it.l.elems[it.i]
	it.i++
	return true
}

func (it *liveListIterator) Done() {}
