package builtins

// HelperFuncs maps helper names to their Go functions, for the doc test.
func HelperFuncs() map[string]any {
	m := map[string]any{}
	for _, hp := range helpers {
		if hp.fn != nil {
			m[hp.Name] = hp.fn
		}
	}
	return m
}
