package sandbox

func itertoolsModule() *module   { return newModule("itertools", nil, nil) }
func stringModule() *module      { return newModule("string", nil, nil) }
func statisticsModule() *module  { return newModule("statistics", nil, nil) }
func functoolsModule() *module   { return newModule("functools", nil, nil) }
