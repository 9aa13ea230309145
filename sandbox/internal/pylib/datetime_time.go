package pylib

import (
	"fmt"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// timeValue is a naive datetime.time: a time of day in microseconds.
type timeValue struct{ us int64 }

var typeTime = new(py.TypeObj)

var (
	_ starlark.HasAttrs   = (*timeValue)(nil)
	_ starlark.Comparable = (*timeValue)(nil)
)

func (v *timeValue) Type() string           { return "time" }
func (v *timeValue) PyTypeObj() *py.TypeObj { return typeTime }
func (v *timeValue) Freeze()                {}
func (v *timeValue) Truth() starlark.Bool   { return true }
func (v *timeValue) Hash() (uint32, error)  { return uint32(v.us) ^ uint32(v.us>>32), nil }
func (v *timeValue) String() string         { return v.PyStr() }

// parts is v as hour, minute, second, microsecond.
func (v *timeValue) parts() [4]int {
	s := v.us / 1e6
	return [4]int{int(s / 3600), int(s / 60 % 60), int(s % 60), int(v.us % 1e6)}
}

func (v *timeValue) PyStr() string {
	p := v.parts()
	s := fmt.Sprintf("%02d:%02d:%02d", p[0], p[1], p[2])
	if p[3] != 0 {
		s += fmt.Sprintf(".%06d", p[3])
	}
	return s
}

func (v *timeValue) WriteRepr(r *py.Renderer) {
	p := v.parts()
	n := 4
	for n > 2 && p[n-1] == 0 {
		n--
	}
	r.B.WriteString("datetime.time(")
	for i := 0; i < n; i++ {
		if i > 0 {
			r.B.WriteString(", ")
		}
		fmt.Fprint(&r.B, p[i])
	}
	r.B.WriteByte(')')
}

// CompareSameType orders times of day.
func (v *timeValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*timeValue)
	c := 0
	switch {
	case v.us < o.us:
		c = -1
	case v.us > o.us:
		c = 1
	}
	return py.CmpResult(op, c), nil
}

// AttrNames lists the attributes of a datetime.time.
func (v *timeValue) AttrNames() []string {
	return []string{"hour", "isoformat", "microsecond", "minute", "replace", "second", "strftime"}
}

// Attr returns a field or a bound method of v.
func (v *timeValue) Attr(name string) (starlark.Value, error) {
	p := v.parts()
	switch name {
	case "hour":
		return starlark.MakeInt(p[0]), nil
	case "minute":
		return starlark.MakeInt(p[1]), nil
	case "second":
		return starlark.MakeInt(p[2]), nil
	case "microsecond":
		return starlark.MakeInt(p[3]), nil
	case "isoformat", "strftime", "replace":
	default:
		return nil, nil
	}
	return py.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			switch name {
			case "isoformat":
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
					return nil, err
				}
				return starlark.String(v.PyStr()), nil
			case "strftime":
				var f string
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &f); err != nil {
					return nil, err
				}
				return starlark.String(strftime(v.wall(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)), f, nil)), nil
			}
			q := p
			if err := starlark.UnpackArgs(name, args, kwargs, "hour?", &q[0], "minute?", &q[1], "second?", &q[2], "microsecond?", &q[3]); err != nil {
				return nil, err
			}
			return makeTime(q)
		}).
			BindReceiver(v),
		nil
}

// wall is v as the time of day on the date of day.
func (v *timeValue) wall(day time.Time) time.Time {
	return day.Add(time.Duration(v.us) * time.Microsecond)
}

// makeTime checks and builds a time from hour, minute, second, microsecond.
func makeTime(p [4]int) (*timeValue, error) {
	switch {
	case p[0] < 0 || p[0] > 23:
		return nil, py.Errorf("ValueError", "hour must be in 0..23")
	case p[1] < 0 || p[1] > 59:
		return nil, py.Errorf("ValueError", "minute must be in 0..59")
	case p[2] < 0 || p[2] > 59:
		return nil, py.Errorf("ValueError", "second must be in 0..59")
	case p[3] < 0 || p[3] > 999999:
		return nil, py.Errorf("ValueError", "microsecond must be in 0..999999")
	}
	return &timeValue{us: ((int64(p[0])*60+int64(p[1]))*60+int64(p[2]))*1e6 + int64(p[3])}, nil
}

// timeOfDay is the time of day of the wall time t.
func timeOfDay(t time.Time) *timeValue {
	return &timeValue{us: ((int64(t.Hour())*60+int64(t.Minute()))*60+int64(t.Second()))*1e6 + int64(t.Nanosecond()/1000)}
}

// completeTimeOfDayType completes typeTime (datetime.time), once, on the
// datetime module's first import.
var completeTimeOfDayType = sync.OnceFunc(func() {
	*typeTime = py.TypeObj{PyName: "time", Check: py.IsType[*timeValue]}
	typeTime.Call = func(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var p [4]int
		if err := starlark.UnpackArgs("time", args, kwargs, "hour?", &p[0], "minute?", &p[1], "second?", &p[2], "microsecond?", &p[3]); err != nil {
			return nil, err
		}
		return makeTime(p)
	}
	typeTime.Attrs = starlark.StringDict{
		"fromisoformat": py.NewBuiltin(
			"fromisoformat",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var s string
				if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
					return nil, err
				}
				for _, layout := range []string{"15:04:05.999999", "15:04", "15"} {
					if t, err := time.Parse(layout, s); err == nil {
						return timeOfDay(t), nil
					}
				}
				return nil, py.Errorf("ValueError", "Invalid isoformat string: %s", py.Repr(starlark.String(s)))
			},
		),
	}
})
