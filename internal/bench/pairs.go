package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// pairCond is a per-user condition: at least one record of category a and
// at least one of category b (a == b: at least two records of a), dated
// within a period of whole months.
type pairCond struct {
	a, b   int
	period monthSpan
}

// monthSpan is the months [from, to] (indexes from January 2023).
type monthSpan struct{ from, to int }

// pairPeriods are the periods conditions range over: the whole two years,
// each year, each quarter and each month.
func pairPeriods() []monthSpan {
	ps := []monthSpan{{0, recordMonths - 1}}
	for _, n := range []int{12, 3, 1} {
		for m := 0; m < recordMonths; m += n {
			ps = append(ps, monthSpan{m, m + n - 1})
		}
	}
	return ps
}

// phrase states the condition; a period applies to every record counted
// ("among their records dated from ... to ..."), so the date range cannot
// be read as binding only the second category.
func (c pairCond) phrase() string {
	var s string
	if c.a == c.b {
		s = fmt.Sprintf("at least two %s records", categories[c.a])
	} else {
		s = fmt.Sprintf("at least one %s record and at least one %s record", categories[c.a], categories[c.b])
	}
	if c.period != (monthSpan{0, recordMonths - 1}) {
		first := recordEpoch.AddDate(0, c.period.from, 0)
		last := recordEpoch.AddDate(0, c.period.to+1, -1)
		s = fmt.Sprintf("among their records dated from %s to %s inclusive, %s", first.Format("2006-01-02"), last.Format("2006-01-02"), s)
	}
	return s
}

// userCounts holds each user's record counts by category and month.
type userCounts struct {
	ids  []int
	cnts []catMonthCounts
}

// catMonthCounts counts one user's records per category and month.
type catMonthCounts [numCategories * recordMonths]uint16

const numCategories = 6

func countUsers(recs []record) *userCounts {
	uc := &userCounts{}
	index := map[int]int{}
	for _, rec := range recs {
		i, ok := index[rec.user]
		if !ok {
			i = len(uc.ids)
			index[rec.user] = i
			uc.ids = append(uc.ids, rec.user)
			uc.cnts = append(uc.cnts, catMonthCounts{})
		}
		j := rec.cat*recordMonths + dayMonth(rec.day)
		if uc.cnts[i][j] < 65535 {
			uc.cnts[i][j]++
		}
	}
	return uc
}

func (c pairCond) holds(cnt *catMonthCounts) bool {
	sum := func(cat int) int {
		n := 0
		for m := c.period.from; m <= c.period.to; m++ {
			n += int(cnt[cat*recordMonths+m])
		}
		return n
	}
	if c.a == c.b {
		return sum(c.a) >= 2
	}
	return sum(c.a) >= 1 && sum(c.b) >= 1
}

// count is the number of users satisfying c.
func (uc *userCounts) count(c pairCond) int {
	n := 0
	for i := range uc.cnts {
		if c.holds(&uc.cnts[i]) {
			n++
		}
	}
	return n
}

// qualifying returns the sorted ids of users satisfying c.
func (uc *userCounts) qualifying(c pairCond) []int {
	var out []int
	for i := range uc.cnts {
		if c.holds(&uc.cnts[i]) {
			out = append(out, uc.ids[i])
		}
	}
	sort.Ints(out)
	return out
}

// genPairs asks for all pairs of users that both satisfy a condition chosen
// so that 4-12 users qualify (4-66 pairs) where possible.
func genPairs(t *Task, r *rand.Rand) {
	recs, _, text := genRecords(t.Size, r)
	t.Vars = []Var{{Name: "records", Value: text}}
	uc := countUsers(recs)
	var inRange []pairCond
	best, bestDist := pairCond{}, -1
	for a := range categories {
		for b := a; b < len(categories); b++ {
			for _, p := range pairPeriods() {
				c := pairCond{a, b, p}
				q := uc.count(c)
				if q >= 4 && q <= 12 {
					inRange = append(inRange, c)
				}
				if d := abs(q - 8); q >= 2 && (bestDist < 0 || d < bestDist) {
					best, bestDist = c, d
				}
			}
		}
	}
	cond := best
	if len(inRange) > 0 {
		cond = inRange[r.IntN(len(inRange))]
	}
	users := uc.qualifying(cond)
	var pairs [][2]string
	var lines []string
	for i := 0; i < len(users); i++ {
		for j := i + 1; j < len(users); j++ {
			p := [2]string{strconv.Itoa(users[i]), strconv.Itoa(users[j])}
			pairs = append(pairs, p)
			lines = append(lines, p[0]+","+p[1])
		}
	}
	t.Query = recordsQueryPreamble() + fmt.Sprintf(
		"List all pairs of two different user ids where both users have %s. List each pair once, as id1,id2 with the smaller id first, one pair per line, and nothing else; if no pair qualifies, answer none.",
		cond.phrase(),
	)
	t.Gold = Gold{Format: GoldPairs, Answer: strings.Join(lines, "\n"), Pairs: pairs}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
