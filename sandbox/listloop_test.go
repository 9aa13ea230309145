package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestListLoopsLive: for loops and comprehensions over a list (stepped
// inline by the interpreter) see elements appended during the loop and
// stop early when elements are removed, as in CPython, in functions and
// at top level, nested, with unpacking, in generators and folds
// (expected output from CPython 3.11).
func TestListLoopsLive(t *testing.T) {
	code := `xs = [1, 2, 3]
out = []
for x in xs:
    out.append(x)
    if x < 3:
        xs.append(x + 10)
print(out, xs)
ys = [1, 2, 3, 4]
seen = []
for y in ys:
    seen.append(y)
    ys.pop()
print(seen, ys)
zs = [1, 2]
print([z + len(zs) for z in zs if len(zs) < 6 and zs.append(z) is None])
def f(ws):
    t = 0
    for w in ws:
        t += w
    return t
print(f(list(range(100))), f([]))
pairs = [[1, 2], [3, 4]]
for a, b in pairs:
    print(a, b)
for i, w in enumerate(['p', 'q']):
    print(i, w)
acc = []
for x in xs:
    for y in xs[:2]:
        acc.append(x * y)
    if x > 10:
        break
print(acc)
def g(ws):
    for w in ws:
        yield w * 2
print(list(g([1, 2, 3])), sum(w for w in [4, 5]))
`
	want := "[1, 2, 3, 11, 12] [1, 2, 3, 11, 12]\n[1, 2] [1, 2]\n[4, 6, 6, 8]\n4950 0\n1 2\n3 4\n0 p\n1 q\n[1, 2, 2, 4, 3, 6, 11, 22]\n[2, 4, 6] 9\n"
	assert.Equal(t, want, run(t, code))
}
