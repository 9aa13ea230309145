package pylib

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The time module; the session's clock it reads is in clock.go.

// nowUTC reads the clock of the session running on thread.
func nowUTC(thread *starlark.Thread) time.Time { return py.ClockOf(thread).Read() }

// typeStructTime is time.struct_time, built on first use.
var typeStructTime = sync.OnceValue(func() *py.TypeObj {
	t, err := namedtuple(
		nil,
		nil,
		starlark.Tuple{
			starlark.String("time.struct_time"),
			starlark.String("tm_year tm_mon tm_mday tm_hour tm_min tm_sec tm_wday tm_yday tm_isdst"),
		},
		nil,
	)
	if err != nil {
		panic(err)
	}
	return t.(*py.TypeObj)
})

// structTime builds a time.struct_time for t.
func structTime(t time.Time, isdst int) starlark.Value {
	vals := starlark.Tuple{
		starlark.MakeInt(t.Year()), starlark.MakeInt(int(t.Month())), starlark.MakeInt(t.Day()),
		starlark.MakeInt(t.Hour()), starlark.MakeInt(t.Minute()), starlark.MakeInt(t.Second()),
		starlark.MakeInt((int(t.Weekday()) + 6) % 7), starlark.MakeInt(t.YearDay()), starlark.MakeInt(isdst),
	}
	v, _ := typeStructTime().Call(nil, vals, nil)
	return v
}

// fromStructTime reads a struct_time or a 9-tuple as a UTC time.
func fromStructTime(fn string, v starlark.Value) (time.Time, error) {
	var tup starlark.Tuple
	switch x := v.(type) {
	case *namedTuple:
		tup = x.Tuple
	case starlark.Tuple:
		tup = x
	default:
		return time.Time{}, py.Errorf("TypeError", "Tuple or struct_time argument required")
	}
	if len(tup) != 9 {
		return time.Time{}, py.Errorf("TypeError", "%s(): illegal time tuple argument", fn)
	}
	var f [6]int
	for i := range f {
		n, err := starlark.AsInt32(tup[i])
		if err != nil {
			return time.Time{}, py.Errorf("TypeError", "'%s' object cannot be interpreted as an integer", py.PyType(tup[i]))
		}
		f[i] = n
	}
	return time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, time.UTC), nil
}

// secondsArg reads an optional seconds-since-the-epoch argument (None:
// the clock).
func secondsArg(thread *starlark.Thread, fn string, args starlark.Tuple, kwargs []starlark.Tuple) (time.Time, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(fn, args, kwargs, 0, &v); err != nil {
		return time.Time{}, err
	}
	if v == starlark.None {
		return nowUTC(thread), nil
	}
	f, err := py.FloatArg(fn, v)
	if err != nil {
		return time.Time{}, err
	}
	return fromTimestamp(f)
}

// fromTimestamp converts seconds since the epoch (UTC) to a time,
// rounded to the microsecond as CPython's datetime does.
func fromTimestamp(f float64) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e14 {
		return time.Time{}, py.Errorf("ValueError", "timestamp out of range for platform time_t")
	}
	sec := math.Floor(f)
	us := math.RoundToEven((f - sec) * 1e6)
	return time.Unix(int64(sec), int64(us)*1000).UTC(), nil
}

// timeStruct reads the optional struct_time argument of strftime and
// asctime (None: the clock).
func timeStruct(thread *starlark.Thread, fn string, v starlark.Value) (time.Time, error) {
	if v == nil || v == starlark.None {
		return nowUTC(thread), nil
	}
	return fromStructTime(fn, v)
}

func asctime(t time.Time) string {
	return fmt.Sprintf(
		"%s %s %2d %02d:%02d:%02d %d",
		dayNames[(int(t.Weekday())+6)%7][:3],
		monthNames[t.Month()-1][:3],
		t.Day(),
		t.Hour(),
		t.Minute(),
		t.Second(),
		t.Year(),
	)
}

var _ = py.RegisterModule("time", timeModule)

// timeModule builds the time module on its first import.
func timeModule() *py.Module {
	seconds := func(thread *starlark.Thread) float64 {
		t := nowUTC(thread)
		return float64(t.UnixMicro()) / 1e6
	}
	noArgs := func(fn string, f func(thread *starlark.Thread) starlark.Value) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(fn, args, kwargs, 0); err != nil {
				return nil, err
			}
			return f(thread), nil
		}
	}
	elapsed := func(thread *starlark.Thread) starlark.Value {
		return starlark.Float(float64(py.ClockOf(thread).Elapsed()) / 1e6)
	}
	elapsedNS := func(thread *starlark.Thread) starlark.Value {
		return starlark.MakeInt64(py.ClockOf(thread).Elapsed() * 1000)
	}
	return py.NewModule("time", map[string]py.BuiltinFn{
		"time": noArgs("time", func(thread *starlark.Thread) starlark.Value { return starlark.Float(seconds(thread)) }),
		"time_ns": noArgs("time_ns", func(thread *starlark.Thread) starlark.Value {
			return starlark.MakeInt64(nowUTC(thread).UnixMicro() * 1000)
		}),
		"monotonic":       noArgs("monotonic", elapsed),
		"perf_counter":    noArgs("perf_counter", elapsed),
		"process_time":    noArgs("process_time", elapsed),
		"thread_time":     noArgs("thread_time", elapsed),
		"monotonic_ns":    noArgs("monotonic_ns", elapsedNS),
		"perf_counter_ns": noArgs("perf_counter_ns", elapsedNS),
		"process_time_ns": noArgs("process_time_ns", elapsedNS),
		"sleep": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("sleep", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			f, err := py.FloatArg("sleep", v)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(f) {
				return nil, py.Errorf("ValueError", "Invalid value NaN (not a number)")
			}
			if f < 0 {
				return nil, py.Errorf("ValueError", "sleep length must be non-negative")
			}
			if f > 1e12 {
				return nil, py.Errorf("OverflowError", "sleep length is too large")
			}
			// The sandbox does not wait: the clock moves on instead.
			py.ClockOf(thread).Advance(int64(math.Round(f * 1e6)))
			return starlark.None, nil
		},
		"gmtime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := secondsArg(thread, "gmtime", args, kwargs)
			if err != nil {
				return nil, err
			}
			return structTime(t, 0), nil
		},
		"localtime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := secondsArg(thread, "localtime", args, kwargs)
			if err != nil {
				return nil, err
			}
			return structTime(t, 0), nil
		},
		"ctime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := secondsArg(thread, "ctime", args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		},
		"asctime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("asctime", args, kwargs, 0, &v); err != nil {
				return nil, err
			}
			t, err := timeStruct(thread, "asctime", v)
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		},
		"mktime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("mktime", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			t, err := fromStructTime("mktime", v)
			if err != nil {
				return nil, err
			}
			return starlark.Float(float64(t.Unix())), nil
		},
		"strftime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f string
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("strftime", args, kwargs, 1, &f, &v); err != nil {
				return nil, err
			}
			t, err := timeStruct(thread, "strftime", v)
			if err != nil {
				return nil, err
			}
			return starlark.String(strftime(t, f, utcZone)), nil
		},
		"strptime": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, f string
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 2, &s, &f); err != nil {
				return nil, err
			}
			d, err := strptime(s, f)
			if err != nil {
				return nil, err
			}
			return structTime(d.t, -1), nil
		},
	}, starlark.StringDict{
		"struct_time": typeStructTime(),
		"timezone":    starlark.MakeInt(0),
		"altzone":     starlark.MakeInt(0),
		"daylight":    starlark.MakeInt(0),
		"tzname":      starlark.Tuple{starlark.String("UTC"), starlark.String("UTC")},
	})
}
