package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// pairCond is a per-user condition: at least one record of category a and
// at least one of category b (a == b: at least two records of a), within
// month (or the whole period when month < 0).
type pairCond struct{ a, b, month int }

func (c pairCond) phrase() string {
	var s string
	if c.a == c.b {
		s = fmt.Sprintf("at least two %s records", categories[c.a])
	} else {
		s = fmt.Sprintf("at least one %s record and at least one %s record", categories[c.a], categories[c.b])
	}
	if c.month >= 0 {
		s += " dated in " + monthName(c.month)
	}
	return s
}

// userCounts counts each user's records by category and month.
type userCounts map[int]*catMonthCounts

// catMonthCounts counts one user's records per category and month.
type catMonthCounts [numCategories * recordMonths]uint16

const numCategories = 6

func countUsers(recs []record) userCounts {
	uc := userCounts{}
	for _, rec := range recs {
		c := uc[rec.user]
		if c == nil {
			c = new(catMonthCounts)
			uc[rec.user] = c
		}
		i := rec.cat*recordMonths + dayMonth(rec.day)
		if c[i] < 65535 {
			c[i]++
		}
	}
	return uc
}

func (c pairCond) holds(cnt *catMonthCounts) bool {
	sum := func(cat int) int {
		if c.month >= 0 {
			return int(cnt[cat*recordMonths+c.month])
		}
		n := 0
		for m := 0; m < recordMonths; m++ {
			n += int(cnt[cat*recordMonths+m])
		}
		return n
	}
	if c.a == c.b {
		return sum(c.a) >= 2
	}
	return sum(c.a) >= 1 && sum(c.b) >= 1
}

// qualifying returns the sorted ids of users satisfying c.
func (uc userCounts) qualifying(c pairCond) []int {
	var out []int
	for u, cnt := range uc {
		if c.holds(cnt) {
			out = append(out, u)
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
			for m := -1; m < recordMonths; m++ {
				c := pairCond{a, b, m}
				q := len(uc.qualifying(c))
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
	t.Query = recordsQueryPreamble() + fmt.Sprintf("List all pairs of user ids where both users have %s. Answer with one pair per line as id1,id2 with the smaller id first, and nothing else.", cond.phrase())
	t.Gold = Gold{Format: GoldPairs, Answer: strings.Join(lines, "\n"), Pairs: pairs}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
