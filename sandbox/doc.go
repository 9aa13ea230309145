// Package sandbox is the Python-style REPL in which the root model's code runs.
//
// A [Session] keeps top-level variables across [Session.Exec] calls like a
// Python REPL. Each step runs on a fresh go.starlark.net thread with its own
// limits (execution steps, wall time, output size, memory, recursion depth)
// and no access to files, network, processes, the real clock or load().
//
// Python source is translated to Starlark by the front-end in sandbox/internal/pyfront;
// the runtime predeclares the Python builtins Starlark lacks (sum, round, map,
// isinstance, ...), the helpers the front-end calls (_py_*), classes, and the
// modules re, json, math, collections, itertools, functools, string,
// statistics, heapq, bisect, operator, textwrap, copy, dataclasses,
// datetime and time (the clock is [Config.Clock], the run's start time in
// UTC: each read advances it by a microsecond and time.sleep(s) by s,
// never with the real time, so replays agree), hashlib, sys (a safe
// subset), random
// (CPython's Mersenne Twister, seeded per session from [Config.Seed]),
// base64, html, urllib.parse, io (StringIO), csv, unicodedata, fractions
// (Fraction on math/big), decimal (basic: Decimal arithmetic, quantize and
// the rounding modes, getcontext().prec and .rounding) and uuid
// (uuid4 seeded per session too). globals(), vars(), dir() and hasattr()
// follow CPython for the builtin types (dir tables generated from CPython). Values print as CPython prints them ([Repr],
// [Str]).
//
// Errors come back as a [*ScriptError] carrying the Python exception name and
// a short Python-style traceback using the model's line numbers.
//
// Strings are indexed, sliced and measured by code point as in Python (the
// front-end routes subscripts through runtime helpers; ASCII text takes a
// fast path cached per string); offsets from str.find, re and the helpers
// agree with slicing. [StrLen], [CharOffset] and [ByteOffset] convert.
//
// Known differences from CPython: generator expressions are evaluated
// eagerly (they arrive as lists); re runs on RE2 (no lookaround or
// backreferences; \b is an ASCII word boundary); set iteration order
// follows insertion except for small non-negative ints, which print sorted
// as in CPython; a variable holding a bool is not an int in arithmetic
// (True + True and count += (a == b) work, flag + 1 with a bool flag does
// not); functions cannot assign globals (a clear error); nonlocal works
// unless Config.NoNonlocal is set; dict views have no set operators
// (write set(d.keys()) & s), a Counter has no unary +, and repr(re.I) is
// not CPython's.
package sandbox
