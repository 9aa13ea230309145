// Package pyre translates Python regular expressions to Go's RE2 syntax and
// finds literal and regular-expression matches in large texts quickly.
//
// [Translate] and [CompileRE] are the one Python-to-RE2 translator of rlm:
// the search() helper and the sandbox's re module both use them, so both
// accept the same patterns with the same meaning and reject constructs RE2
// lacks (lookaround, backreferences, atomic groups, possessive quantifiers)
// with the same error, wrapping [ErrUnsupported].
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
