// Package pylib holds the Python modules code in the sandbox can import,
// one file per module named for it (collections.go with namedtuple,
// deque and Counter; re.go and its re_*.go engine files; datetime.go;
// ...). Each file registers its module with the value layer
// (py.RegisterModule) when the package is linked: the public face imports
// this package for that alone. The modules build on sandbox/internal/py
// and never the other way; a module's per-session state (the random
// generator, uuid4's, the decimal context) sits behind a py session key.
package pylib
