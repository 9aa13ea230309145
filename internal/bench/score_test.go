package bench

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestScoreNumberExact(t *testing.T) {
	g := Gold{Format: GoldNumber, Answer: "4821937", Number: 4821937}
	tests := []struct {
		answer string
		want   float64
	}{
		{"4821937", 1},
		{"  4821937 \n", 1},
		{"4,821,937", 1},
		{"The special magic number for amber-falcon is 4821937.", 1},
		{"**4821937**", 1},
		{"four million eight hundred twenty-one thousand nine hundred thirty-seven", 1},
		{"", 0},
		{"I could not find it.", 0},
		{"4821938", 0},
		{"48219370", 0},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			assert.Equal(t, tt.want, Score(g, tt.answer))
		})
	}
}

func TestScoreNumberPartial(t *testing.T) {
	g := Gold{Format: GoldNumber, Answer: "12", Number: 12, Partial: true}
	tests := []struct {
		answer string
		want   float64
	}{
		{"12", 1},
		{"twelve", 1},
		{"Twelve.", 1},
		{"There are 12 records.", 1},
		{"13", 0.75},
		{"ten", 0.75 * 0.75},
		{"one hundred and twelve", math.Pow(0.75, 100)},
		{"", 0},
		{"none", math.Pow(0.75, 12)},
		{"From 2023-01-01 to 2023-03-31 there are 12.", 1},
		{"There are 12 records dated from 2023-01-01 to 2023-03-31.", 1},
		{"\t 12 \n\n", 1},
		{"   ", 0},
		{"eleven", 0.75},
		{"a dozen", 0},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			assert.InDelta(t, tt.want, Score(g, tt.answer), 1e-12)
		})
	}
	big := Gold{Format: GoldNumber, Number: 1234, Partial: true}
	assert.Equal(t, 1.0, Score(big, "1,234"))
	assert.Equal(t, 1.0, Score(big, "one thousand two hundred thirty-four"))
	assert.Equal(t, 0.75, Score(big, "1,235 records"))
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		in   string
		want []float64
	}{
		{"", nil},
		{"twenty-three and 7", []float64{23, 7}},
		{"1.5 million", []float64{1.5e6}},
		{"two thousand five hundred", []float64{2500}},
		{"3,4", []float64{3, 4}},
		{"12,345,678", []float64{12345678}},
		{"the answer", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Numbers(tt.in), tt.in)
	}
}

func TestScoreLabel(t *testing.T) {
	g := Gold{Format: GoldLabel, Answer: "location", Labels: []string{"location", "human"}}
	tests := []struct {
		answer string
		want   float64
	}{
		{"location", 1},
		{"  Location. ", 1},
		{"LOCATION", 1},
		{"**location**", 1},
		{"The location category has more records.", 1},
		{"locations", 1},
		{"human", 0},
		{"location or human", 0},
		{"", 0},
		{"numeric", 0},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			assert.Equal(t, tt.want, Score(g, tt.answer))
		})
	}
}

func TestScorePairs(t *testing.T) {
	g := Gold{Format: GoldPairs, Pairs: [][2]string{{"100001", "200002"}, {"100001", "300003"}, {"200002", "300003"}}}
	tests := []struct {
		name   string
		answer string
		want   float64
	}{
		{"exact", "100001,200002\n100001,300003\n200002,300003", 1},
		{"either order", "200002,100001\n300003,100001\n300003,200002", 1},
		{"duplicates ignored", "100001,200002\n100001,200002\n100001,300003\n200002,300003\n200002, 100001", 1},
		{"tuples on one line", "[(100001, 200002), (100001, 300003), (200002, 300003)]", 1},
		{"numbered list", "1. 100001,200002\n2. 100001,300003\n3. 200002,300003", 1},
		{"missing one", "100001,200002\n100001,300003", 2 * (1.0 * 2.0 / 3) / (1 + 2.0/3)},
		{"one wrong extra", "100001,200002\n100001,300003\n200002,300003\n100001,400004", 2 * 0.75 / 1.75},
		{"self pair ignored", "100001,100001\n100001,200002\n100001,300003\n200002,300003", 1},
		{"empty", "", 0},
		{"whitespace only", " \n\t ", 0},
		{"extra whitespace", "\n  100001 ,  200002 \n\n\t100001,300003  \n 200002,\t300003\n\n", 1},
		{"none of them", "999999,888888", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Score(g, tt.answer), 1e-12)
		})
	}
	empty := Gold{Format: GoldPairs}
	assert.Equal(t, 1.0, Score(empty, "no pairs"), "empty gold and empty answer agree")
	assert.Equal(t, 0.0, Score(empty, "100001,200002"))
}

func TestScoreFiles(t *testing.T) {
	g := Gold{Format: GoldFiles, Defined: "src/a/core/x.py", Callers: []string{"src/b/api/y.py", "tests/a/test_x.py"}}
	tests := []struct {
		name   string
		answer string
		want   float64
	}{
		{"json", `{"defined": "src/a/core/x.py", "callers": ["src/b/api/y.py", "tests/a/test_x.py"]}`, 1},
		{
			"json in fence, callers reordered",
			"```json\n{\"defined\": \"./src/a/core/x.py\", \"callers\": [\"tests/a/test_x.py\", \"src/b/api/y.py\", \"src/b/api/y.py\"]}\n```",
			1,
		},
		{"prose lines", "Defined in `src/a/core/x.py`.\nCalled from: src/b/api/y.py, tests/a/test_x.py", 1},
		{"missing caller", `{"defined": "src/a/core/x.py", "callers": ["src/b/api/y.py"]}`, 0},
		{"extra caller", `{"defined": "src/a/core/x.py", "callers": ["src/b/api/y.py", "tests/a/test_x.py", "docs/a/core.md"]}`, 0},
		{
			"extra whitespace",
			"\n  {\"defined\": \" src/a/core/x.py \",\n \"callers\": [\"  src/b/api/y.py\", \"tests/a/test_x.py\\n\"]}  \n",
			1,
		},
		{"wrong definition", `{"defined": "src/b/api/y.py", "callers": ["src/b/api/y.py", "tests/a/test_x.py"]}`, 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Score(g, tt.answer))
		})
	}
}
