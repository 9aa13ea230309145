package bench

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Score grades answer against g, from 0 to 1:
//
//   - GoldNumber: the answer's number (the whole answer read as a number,
//     else the last number in it; digits with or without thousands commas,
//     or English words like "twelve" or "one hundred and five") must equal
//     the gold number; with Partial the score is 0.75^|error|.
//   - GoldLabel: the answer, ignoring case, whitespace and punctuation, is
//     the gold label, or names exactly one candidate label and it is the
//     gold one.
//   - GoldPairs: F1 of the answer's pairs against the gold pairs. Ids are
//     read in order and paired consecutively; order within a pair, repeated
//     pairs and self-pairs do not count.
//   - GoldFiles: 1 when the definition path and the set of caller paths
//     both match, read from a JSON object {"defined", "callers"} or from
//     lines mentioning "defined" and "call".
func Score(g Gold, answer string) float64 {
	switch g.Format {
	case GoldNumber:
		n, ok := AnswerNumber(answer)
		if !ok {
			return 0
		}
		diff := math.Abs(n - float64(g.Number))
		if g.Partial {
			return math.Pow(0.75, diff)
		}
		if diff == 0 {
			return 1
		}
		return 0
	case GoldLabel:
		return scoreLabel(g, answer)
	case GoldPairs:
		return PairsF1(ParsePairs(answer, idDigits(g.Pairs)), g.Pairs)
	case GoldFiles:
		def, callers := ParseFilesAnswer(answer)
		if def == normPath(g.Defined) && sameSet(callers, g.Callers) {
			return 1
		}
		return 0
	}
	return 0
}

var (
	numTokenRe = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[a-z]+`)
	nonWordRe  = regexp.MustCompile(`[^a-z0-9]+`)
	digitsRe   = regexp.MustCompile(`\d+`)
	dateRe     = regexp.MustCompile(`\b\d{4}-\d\d-\d\d\b`)
)

var (
	smallNums = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "none": 0,
	}
	scaleNums = map[string]float64{"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9}
)

// Numbers returns the numbers in s in order: digit groups (commas as
// thousands separators) and runs of English number words.
func Numbers(s string) []float64 {
	toks := numTokenRe.FindAllString(strings.ToLower(s), -1)
	var out []float64
	// word-number state
	inWords := false
	var total, cur float64
	flush := func() {
		if inWords {
			out = append(out, total+cur)
		}
		inWords, total, cur = false, 0, 0
	}
	for i, t := range toks {
		if t == "" {
			continue // consumed as a scale word
		}
		if t[0] >= '0' && t[0] <= '9' {
			flush()
			v, err := strconv.ParseFloat(strings.ReplaceAll(t, ",", ""), 64)
			if err != nil {
				continue
			}
			// "1.5 million"
			if i+1 < len(toks) {
				if m, ok := scaleNums[toks[i+1]]; ok && m >= 1e3 {
					v *= m
					toks[i+1] = "" // consumed
				}
			}
			out = append(out, v)
			continue
		}
		if v, ok := smallNums[t]; ok {
			if t == "none" {
				flush()
				out = append(out, 0)
				continue
			}
			inWords = true
			cur += v
			continue
		}
		if m, ok := scaleNums[t]; ok && inWords {
			if m == 100 {
				cur *= 100
			} else {
				total += cur * m
				cur = 0
			}
			continue
		}
		if t == "and" && inWords {
			continue
		}
		flush()
	}
	flush()
	return out
}

// AnswerNumber reads the number an answer gives: the whole answer if it is
// one number, else the last number in it. Dates (2023-01-31) are not
// numbers: an answer restating the query's date range keeps its count.
func AnswerNumber(answer string) (float64, bool) {
	ns := Numbers(dateRe.ReplaceAllString(answer, " "))
	if len(ns) == 0 {
		return 0, false
	}
	return ns[len(ns)-1], true
}

func normText(s string) string {
	return strings.TrimSpace(nonWordRe.ReplaceAllString(strings.ToLower(s), " "))
}

func scoreLabel(g Gold, answer string) float64 {
	a := normText(answer)
	gold := normText(g.Answer)
	if a == "" {
		return 0
	}
	if a == gold {
		return 1
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(a) {
		words[w] = true
		words[strings.TrimSuffix(w, "s")] = true
	}
	var named []string
	for _, l := range g.Labels {
		if words[normText(l)] {
			named = append(named, normText(l))
		}
	}
	if len(named) == 1 && named[0] == gold {
		return 1
	}
	return 0
}

// idDigits is the digit count of the gold ids (6 if there are none).
func idDigits(pairs [][2]string) int {
	if len(pairs) > 0 {
		return len(pairs[0][0])
	}
	return 6
}

// ParsePairs reads id pairs from answer: every whole number of digits
// digits, in order, paired consecutively. Each pair is sorted; repeated
// pairs and self-pairs are dropped.
func ParsePairs(answer string, digits int) [][2]string {
	var ids []string
	for _, m := range digitsRe.FindAllString(answer, -1) {
		if len(m) == digits {
			ids = append(ids, m)
		}
	}
	seen := map[[2]string]bool{}
	var out [][2]string
	for i := 0; i+1 < len(ids); i += 2 {
		p := [2]string{ids[i], ids[i+1]}
		if p[0] == p[1] {
			continue
		}
		if p[0] > p[1] {
			p[0], p[1] = p[1], p[0]
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// PairsF1 is the F1 score of got against want (pairs sorted within; want
// without repeats). Both empty scores 1.
func PairsF1(got, want [][2]string) float64 {
	if len(got) == 0 && len(want) == 0 {
		return 1
	}
	if len(got) == 0 || len(want) == 0 {
		return 0
	}
	w := map[[2]string]bool{}
	for _, p := range want {
		if p[0] > p[1] {
			p[0], p[1] = p[1], p[0]
		}
		w[p] = true
	}
	hit := 0
	for _, p := range got {
		if w[p] {
			hit++
		}
	}
	if hit == 0 {
		return 0
	}
	prec := float64(hit) / float64(len(got))
	rec := float64(hit) / float64(len(w))
	return 2 * prec * rec / (prec + rec)
}

var pathRe = regexp.MustCompile(`[A-Za-z0-9_.\-/]+\.(?:py|md)\b`)

func normPath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "`'\"")
	return strings.TrimPrefix(p, "./")
}

// ParseFilesAnswer reads the definition path and caller paths of a files
// answer: a JSON object {"defined": ..., "callers": [...]} if there is one,
// else the first path on a line mentioning "defin" and the paths on lines
// mentioning "call".
func ParseFilesAnswer(answer string) (string, []string) {
	if i, j := strings.Index(answer, "{"), strings.LastIndex(answer, "}"); i >= 0 && j > i {
		var v struct {
			Defined any `json:"defined"`
			Callers any `json:"callers"`
		}
		if json.Unmarshal([]byte(answer[i:j+1]), &v) == nil {
			def, _ := v.Defined.(string)
			var callers []string
			switch c := v.Callers.(type) {
			case []any:
				for _, x := range c {
					if s, ok := x.(string); ok {
						callers = append(callers, normPath(s))
					}
				}
			case string:
				callers = append(callers, pathRe.FindAllString(c, -1)...)
			}
			return normPath(def), callers
		}
	}
	var def string
	var callers []string
	for _, line := range strings.Split(answer, "\n") {
		l := strings.ToLower(line)
		paths := pathRe.FindAllString(line, -1)
		switch {
		case strings.Contains(l, "defin") && def == "" && len(paths) > 0:
			def = normPath(paths[0])
			if strings.Contains(l, "call") {
				callers = append(callers, paths[1:]...)
			}
		case strings.Contains(l, "call") || (def != "" && len(callers) > 0 && len(paths) > 0):
			callers = append(callers, paths...)
		}
	}
	return def, callers
}

func sameSet(a, b []string) bool {
	as, bs := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		as[normPath(x)] = true
	}
	for _, x := range b {
		bs[normPath(x)] = true
	}
	if len(as) != len(bs) {
		return false
	}
	for k := range as {
		if !bs[k] {
			return false
		}
	}
	return true
}
