// Package pyre runs Python regular expressions with CPython's meaning and
// finds literal and regular-expression matches in large texts quickly.
//
// [CompilePython] is the one Python regex compiler of rlm: the search()
// helper and the sandbox's re module both use it, so both accept the same
// patterns with the same meaning. It parses a pattern as CPython 3.11's re
// does (a bad pattern is an [*Error] with CPython's message) and runs it
// on Go's RE2 (linear time) when RE2 gives Python's answer, translated by
// [Translate]; constructs RE2 lacks (lookaround, backreferences, atomic
// groups, possessive quantifiers, conditional groups) and the few cases
// where RE2 would answer differently run on a backtracking engine
// ([Backtrack], github.com/dlclark/regexp2) with a bounded backtracking
// stack instead. [Translate] alone reports those constructs as errors
// wrapping [ErrUnsupported].
//
// Go's regexp is linear-time but slow (about 14 MB/s) when a pattern has no
// literal prefix, such as [Mm]agic number or (?i)magic number. A
// [Prefilter] avoids that: it extracts from the parsed pattern literal
// strings one of which every match must contain (case-folded for
// case-insensitive parts), scans the text for them with SIMD-accelerated
// byte searches for their rarest byte, and the caller runs the full
// regular expression only on the lines where one occurs. A [Matcher] does
// this line by line for search(); the re module does it for patterns that
// cannot match across lines.
package pyre
