// Package sandbox is the Python-style REPL in which the root model's code runs.
//
// A [Session] keeps top-level variables across [Session.Exec] calls like a
// Python REPL. Each step runs on a fresh go.starlark.net thread with its own
// limits (execution steps, wall time, output size, memory, recursion depth)
// and no access to files, network, processes, the real clock or load().
//
// This package is the public face: [Session], [Config] and [Limits], [Result],
// the errors, the memory and time watchdogs, the output and the traceback.
// Underneath, sandbox/internal/pyfront translates Python to Starlark,
// sandbox/internal/py is the value layer and the builtins, and
// sandbox/internal/pylib holds the importable modules, one file each.
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
// Known differences from CPython (each checked against the binary; the
// compat corpus in testdata runs real model-written code in both):
// generator expressions are evaluated eagerly (they arrive as lists, so
// type() is list) and generator functions run to their end when called
// (an iterator over what they yielded, so an infinite generator is
// refused at compile time); sets of small non-negative ints iterate in
// CPython's order, other sets in insertion order; repr of re flags (re.I)
// is their int value; recursion stops at Limits.MaxRecursion with
// RecursionError. Everything else the front end accepts behaves as in
// CPython 3.11; what it rejects (async, match, yield expressions, complex
// numbers) is an error naming the line and what to write instead.
package sandbox
