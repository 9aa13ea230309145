// Package grep finds literal and regular-expression matches in large texts
// quickly, line by line.
//
// Go's regexp is linear-time but slow (about 14 MB/s) when a pattern has no
// literal prefix, such as [Mm]agic number or (?i)magic number. A [Matcher]
// avoids that: it extracts from the parsed pattern literal strings that every
// match must contain (case-folded for case-insensitive parts), scans the
// text for them with SIMD-accelerated byte searches, and runs the full
// regular expression only on the lines where one occurs.
//
// Patterns use Python's re syntax as far as RE2 supports it; constructs RE2
// lacks (lookaround, backreferences) are reported with a clear error.
package grep
