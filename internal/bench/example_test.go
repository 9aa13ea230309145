package bench_test

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/bench"
)

// Generate a task, answer it, and score the answer.
func Example() {
	t, err := bench.Generate(bench.KindNIAH, 8000, 42, 0)
	if err != nil {
		panic(err)
	}
	again, _ := bench.Generate(bench.KindNIAH, 8000, 42, 0)
	fmt.Println("deterministic:", t.Vars[0].Value == again.Vars[0].Value)
	fmt.Println("variable:", t.Vars[0].Name)
	fmt.Println("exact:", bench.Score(t.Gold, t.Gold.Answer))
	fmt.Println("wrong:", bench.Score(t.Gold, "1234567"))
	// Output:
	// deterministic: true
	// variable: context
	// exact: 1
	// wrong: 0
}

// Numeric answers of aggregate counts earn partial credit.
func ExampleScore() {
	g := bench.Gold{Format: bench.GoldNumber, Number: 12, Partial: true}
	for _, a := range []string{"12", "twelve", "There are 13.", ""} {
		fmt.Printf("%q: %.4f\n", a, bench.Score(g, a))
	}
	// Output:
	// "12": 1.0000
	// "twelve": 1.0000
	// "There are 13.": 0.7500
	// "": 0.0000
}
