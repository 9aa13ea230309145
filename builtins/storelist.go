package builtins

import (
	"fmt"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// Listing returns the keys given to the run (not its children's), one
// prompt line each ("- store_get(KEY): SUMMARY"), so that a model given stored results
// need not spend a step on store_keys() to find them; past max keys a
// last line says how many more store_keys() lists. It is empty when
// nothing is readable yet.
func (v *StoreView) Listing(max int) []string {
	all, err := v.readable("")
	if err != nil {
		return nil
	}
	var metas []rlmctx.Meta
	for _, m := range all {
		if v.given(m.Key) {
			metas = append(metas, m)
		}
	}
	var lines []string
	for i, m := range metas {
		if i == max {
			lines = append(lines, fmt.Sprintf("- … %d more stored keys: store_keys() lists them", len(metas)-max))
			break
		}
		sum, err := v.summary(m.Ref)
		if err != nil {
			sum = string(m.Type)
		}
		lines = append(lines, fmt.Sprintf("- store_get(%q): %s", m.Key, strings.TrimSpace(sum)))
	}
	return lines
}
