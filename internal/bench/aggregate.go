package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// recordFilter restricts a records question to a date range or a user set.
type recordFilter struct {
	from, to int          // inclusive day range; to < 0 means none
	users    map[int]bool // nil means all users
	phrase   string       // how the query states it
}

func (f recordFilter) match(rec record) bool {
	if f.to >= 0 && (rec.day < f.from || rec.day > f.to) {
		return false
	}
	if f.users != nil && !f.users[rec.user] {
		return false
	}
	return true
}

// randomFilter picks no filter, a date range or a user set.
func randomFilter(r *rand.Rand, users []int) recordFilter {
	switch r.IntN(3) {
	case 1:
		a, b := r.IntN(recordDays), r.IntN(recordDays)
		if a > b {
			a, b = b, a
		}
		if b-a < 60 {
			b = min(a+60+r.IntN(120), recordDays-1)
		}
		return recordFilter{
			from:   a,
			to:     b,
			phrase: fmt.Sprintf(" Consider only records dated from %s to %s inclusive.", dayString(a), dayString(b)),
		}
	case 2:
		k := min(3+r.IntN(6), len(users))
		set := map[int]bool{}
		ids := make([]string, 0, k)
		for _, i := range r.Perm(len(users))[:k] {
			set[users[i]] = true
			ids = append(ids, strconv.Itoa(users[i]))
		}
		return recordFilter{to: -1, users: set, phrase: fmt.Sprintf(" Consider only records of the users %s.", strings.Join(ids, ", "))}
	}
	return recordFilter{to: -1}
}

// genAggregate asks a count, compare, most- or least-frequent question.
func genAggregate(t *Task, r *rand.Rand) {
	recs, users, text := genRecords(t.Size, r)
	t.Vars = []Var{{Name: "records", Value: text}}
	pre := recordsQueryPreamble()
	for attempt := 0; ; attempt++ {
		f := randomFilter(r, users)
		counts := make([]int, len(categories))
		for _, rec := range recs {
			if f.match(rec) {
				counts[rec.cat]++
			}
		}
		kind := r.IntN(4)
		if attempt >= 20 {
			kind = 0 // counts never tie
		}
		switch kind {
		case 0:
			c := r.IntN(len(categories))
			t.Query = pre + fmt.Sprintf("How many records are in the category %s?%s Answer with a single number.", categories[c], f.phrase)
			t.Gold = Gold{Format: GoldNumber, Answer: strconv.Itoa(counts[c]), Number: int64(counts[c]), Partial: true}
			return
		case 1:
			p := r.Perm(len(categories))
			a, b := p[0], p[1]
			if counts[a] == counts[b] {
				continue
			}
			win := a
			if counts[b] > counts[a] {
				win = b
			}
			t.Query = pre + fmt.Sprintf(
				"Which category has more records: %s or %s?%s Answer with the category name only.",
				categories[a],
				categories[b],
				f.phrase,
			)
			t.Gold = Gold{Format: GoldLabel, Answer: categories[win], Labels: []string{categories[a], categories[b]}}
			return
		case 2, 3:
			most := kind == 2
			order := make([]int, len(categories))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(i, j int) bool {
				if most {
					return counts[order[i]] > counts[order[j]]
				}
				return counts[order[i]] < counts[order[j]]
			})
			if counts[order[0]] == counts[order[1]] {
				continue
			}
			word := "least"
			if most {
				word = "most"
			}
			t.Query = pre + fmt.Sprintf("Which category is the %s frequent?%s Answer with the category name only.", word, f.phrase)
			t.Gold = Gold{Format: GoldLabel, Answer: categories[order[0]], Labels: append([]string(nil), categories...)}
			return
		}
	}
}
