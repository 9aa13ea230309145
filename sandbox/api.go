package sandbox

import (
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
	_ "github.com/rlmhq/rlm/sandbox/internal/pylib"
)

// ByteOffset is [py.ByteOffset].
func ByteOffset(s string, charOffset int) int { return py.ByteOffset(s, charOffset) }

// CharOffset is [py.CharOffset].
func CharOffset(s string, byteOffset int) int { return py.CharOffset(s, byteOffset) }

// DefaultMaxMemory is [py.DefaultMaxMemory].
const DefaultMaxMemory = py.DefaultMaxMemory

// DefaultMaxRecursion is [py.DefaultMaxRecursion].
const DefaultMaxRecursion = py.DefaultMaxRecursion

// DefaultTimeout is [py.DefaultTimeout].
const DefaultTimeout = py.DefaultTimeout

// DictFields is [py.DictFields].
type DictFields = py.DictFields

// ErrCanceled is [py.ErrCanceled].
var ErrCanceled = py.ErrCanceled

// ErrMemoryLimit is [py.ErrMemoryLimit].
var ErrMemoryLimit = py.ErrMemoryLimit

// ErrOutputLimit is [py.ErrOutputLimit].
var ErrOutputLimit = py.ErrOutputLimit

// ErrRecursionLimit is [py.ErrRecursionLimit].
var ErrRecursionLimit = py.ErrRecursionLimit

// ErrSessionMemoryLimit is [py.ErrSessionMemoryLimit].
var ErrSessionMemoryLimit = py.ErrSessionMemoryLimit

// ErrStepLimit is [py.ErrStepLimit].
var ErrStepLimit = py.ErrStepLimit

// ErrTimeout is [py.ErrTimeout].
var ErrTimeout = py.ErrTimeout

// ErrUnsupported is [py.ErrUnsupported].
var ErrUnsupported = py.ErrUnsupported

// Errorf is [py.Errorf].
func Errorf(kind string, format string, args ...any) error { return py.Errorf(kind, format, args...) }

// FromGo is [py.FromGo].
func FromGo(v any) (starlark.Value, error) { return py.FromGo(v) }

// Interrupted is [py.Interrupted].
func Interrupted(thread *starlark.Thread) error { return py.Interrupted(thread) }

// IsBuiltinName is [py.IsBuiltinName].
func IsBuiltinName(name string) bool { return py.IsBuiltinName(name) }

// LazyDict is [py.LazyDict].
type LazyDict = py.LazyDict

// MatchBudget is [py.MatchBudget].
func MatchBudget(thread *starlark.Thread) time.Duration { return py.MatchBudget(thread) }

// MaxRenderDepth is [py.MaxRenderDepth].
const MaxRenderDepth = py.MaxRenderDepth

// ModuleNames is [py.ModuleNames].
func ModuleNames() []string { return py.ModuleNames() }

// NewBuiltin is [py.NewBuiltin].
func NewBuiltin(name string, fn func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	return py.NewBuiltin(name, fn)
}

// Proxy is [py.Proxy].
type Proxy = py.Proxy

// PyError is [py.PyError].
type PyError = py.PyError

// RaisedByCode is [py.RaisedByCode].
func RaisedByCode(err error) bool { return py.RaisedByCode(err) }

// Repr is [py.Repr].
func Repr(v starlark.Value) string { return py.Repr(v) }

// ReprLimit is [py.ReprLimit].
func ReprLimit(v starlark.Value, max int) string { return py.ReprLimit(v, max) }

// SetStep is [py.SetStep].
func SetStep(thread *starlark.Thread, st *Step) { py.SetStep(thread, st) }

// State is [py.State].
type State = py.State

// Step is [py.Step].
type Step = py.Step

// StepGlobals is [py.StepGlobals].
func StepGlobals(thread *starlark.Thread) ([]string, starlark.StringDict) {
	return py.StepGlobals(thread)
}

// StepHost is [py.StepHost].
type StepHost = py.StepHost

// Str is [py.Str].
func Str(v starlark.Value) string { return py.Str(v) }

// StrLen is [py.StrLen].
func StrLen(s string) int { return py.StrLen(s) }

// StrLimit is [py.StrLimit].
func StrLimit(v starlark.Value, max int) string { return py.StrLimit(v, max) }

// StrOn is [py.StrOn].
func StrOn(thread *starlark.Thread, v starlark.Value) string { return py.StrOn(thread, v) }

// ToGo is [py.ToGo].
func ToGo(v starlark.Value) (any, error) { return py.ToGo(v) }

// ToGoOn is [py.ToGoOn].
func ToGoOn(thread *starlark.Thread, v starlark.Value) (any, error) { return py.ToGoOn(thread, v) }

// TypeName is [py.TypeName].
func TypeName(v starlark.Value) string { return py.TypeName(v) }

// Unproxy is [py.Unproxy].
func Unproxy(thread *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	return py.Unproxy(thread, v)
}
