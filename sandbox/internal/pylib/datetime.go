package pylib

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The datetime module: dates, times (naive, or aware with a fixed-offset
// timezone such as timezone.utc) and timedeltas, parsing and formatting.
// now(), today() and friends read the session's clock (time.go): the
// run's start time, in UTC, which is also the sandbox's local time.

// dtValue is a datetime.datetime (isDate false) or datetime.date.
type dtValue struct {
	t      time.Time // wall time, in a UTC time.Time
	isDate bool
	tz     *tzValue // nil: naive
}

// instant is d's time in UTC (its wall time for a naive datetime).
func (d *dtValue) instant() time.Time {
	if d.tz == nil {
		return d.t
	}
	return d.t.Add(-time.Duration(d.tz.off) * time.Second)
}

// tzValue is a datetime.timezone: a fixed offset from UTC, in seconds.
type tzValue struct {
	off  int64
	name string
}

// utcZone is datetime.timezone.utc.
var utcZone = &tzValue{}

var typeTimezone = new(py.TypeObj)

func (z *tzValue) Type() string           { return "timezone" }
func (z *tzValue) PyTypeObj() *py.TypeObj { return typeTimezone }
func (z *tzValue) Freeze()                {}
func (z *tzValue) Truth() starlark.Bool   { return true }
func (z *tzValue) Hash() (uint32, error)  { return uint32(z.off), nil }
func (z *tzValue) String() string         { return z.PyStr() }
func (z *tzValue) PyStr() string {
	switch {
	case z.name != "":
		return z.name
	case z.off == 0:
		return "UTC"
	}
	return "UTC" + offsetString(z.off, ":")
}
func (z *tzValue) WriteRepr(r *py.Renderer) {
	if z == utcZone {
		r.B.WriteString("datetime.timezone.utc")
		return
	}
	r.B.WriteString("datetime.timezone(")
	(&tdValue{z.off * 1e6}).WriteRepr(r)
	if z.name != "" {
		r.B.WriteString(", ")
		r.Repr(starlark.String(z.name))
	}
	r.B.WriteByte(')')
}
func (z *tzValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*tzValue)
	switch op {
	case syntax.EQL:
		return z.off == o.off, nil
	case syntax.NEQ:
		return z.off != o.off, nil
	}
	return false, py.Errorf("TypeError", "'%s' not supported between instances of 'datetime.timezone' and 'datetime.timezone'", op)
}
func (z *tzValue) AttrNames() []string { return []string{"tzname", "utcoffset"} }
func (z *tzValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "utcoffset":
		return py.NewBuiltin("utcoffset", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				return &tdValue{z.off * 1e6}, nil
			}).
				BindReceiver(z),
			nil
	case "tzname":
		return py.NewBuiltin("tzname", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.String(z.PyStr()), nil
		}).BindReceiver(z), nil
	}
	return nil, nil
}

// offsetString renders an offset in seconds as +HH<sep>MM[<sep>SS].
func offsetString(off int64, sep string) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := fmt.Sprintf("%s%02d%s%02d", sign, off/3600, sep, off%3600/60)
	if off%60 != 0 {
		s += fmt.Sprintf("%s%02d", sep, off%60)
	}
	return s
}

// tdValue is a datetime.timedelta in microseconds.
type tdValue struct{ us int64 }

var (
	_ starlark.HasAttrs   = (*dtValue)(nil)
	_ starlark.HasBinary  = (*dtValue)(nil)
	_ starlark.Comparable = (*dtValue)(nil)
	_ starlark.HasAttrs   = (*tdValue)(nil)
	_ starlark.HasBinary  = (*tdValue)(nil)
	_ starlark.Comparable = (*tdValue)(nil)
)

var typeDatetime, typeDate, typeTimedelta = new(py.TypeObj), new(py.TypeObj), new(py.TypeObj)

func (d *dtValue) Type() string {
	if d.isDate {
		return "date"
	}
	return "datetime"
}
func (d *dtValue) PyTypeObj() *py.TypeObj {
	if d.isDate {
		return typeDate
	}
	return typeDatetime
}
func (d *dtValue) Freeze()               {}
func (d *dtValue) Truth() starlark.Bool  { return true }
func (d *dtValue) Hash() (uint32, error) { return uint32(d.instant().UnixNano()), nil }
func (d *dtValue) String() string        { return d.PyStr() }
func (d *dtValue) PyStr() string {
	if d.isDate {
		return d.t.Format("2006-01-02")
	}
	s := d.t.Format("2006-01-02 15:04:05")
	if us := d.t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if d.tz != nil {
		s += offsetString(d.tz.off, ":")
	}
	return s
}
func (d *dtValue) WriteRepr(r *py.Renderer) {
	t := d.t
	if d.isDate {
		fmt.Fprintf(&r.B, "datetime.date(%d, %d, %d)", t.Year(), t.Month(), t.Day())
		return
	}
	parts := []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000}
	n := len(parts)
	for n > 5 && parts[n-1] == 0 {
		n--
	}
	strs := make([]string, n)
	for i := range strs {
		strs[i] = strconv.Itoa(parts[i])
	}
	fmt.Fprintf(&r.B, "datetime.datetime(%s", strings.Join(strs, ", "))
	if d.tz != nil {
		r.B.WriteString(", tzinfo=")
		d.tz.WriteRepr(r)
	}
	r.B.WriteByte(')')
}

func (d *dtValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*dtValue)
	if (d.tz == nil) != (o.tz == nil) && !d.isDate && !o.isDate {
		switch op {
		case syntax.EQL:
			return false, nil
		case syntax.NEQ:
			return true, nil
		}
		return false, py.Errorf("TypeError", "can't compare offset-naive and offset-aware datetimes")
	}
	c := d.instant().Compare(o.instant())
	return py.CmpResult(op, c), nil
}

func (d *dtValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch o := y.(type) {
	case *tdValue:
		dur := time.Duration(o.us) * time.Microsecond
		switch {
		case op == syntax.PLUS:
			return d.with(d.t.Add(dur)), nil
		case op == syntax.MINUS && side == starlark.Left:
			return d.with(d.t.Add(-dur)), nil
		}
	case *dtValue:
		if op == syntax.MINUS && o.isDate == d.isDate {
			if (d.tz == nil) != (o.tz == nil) {
				return nil, py.Errorf("TypeError", "can't subtract offset-naive and offset-aware datetimes")
			}
			a, b := d.instant(), o.instant()
			if side == starlark.Right {
				a, b = b, a
			}
			return &tdValue{us: a.Sub(b).Microseconds()}, nil
		}
	}
	return nil, nil
}

func (d *dtValue) with(t time.Time) *dtValue {
	if d.isDate {
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return &dtValue{t: t, isDate: d.isDate, tz: d.tz}
}

func (d *dtValue) AttrNames() []string {
	if d.isDate {
		return []string{
			"day",
			"isocalendar",
			"isoformat",
			"isoweekday",
			"month",
			"replace",
			"strftime",
			"timetuple",
			"toordinal",
			"weekday",
			"year",
		}
	}
	return []string{
		"astimezone",
		"date",
		"day",
		"hour",
		"isocalendar",
		"isoformat",
		"isoweekday",
		"microsecond",
		"minute",
		"month",
		"replace",
		"second",
		"strftime",
		"time",
		"timestamp",
		"timetuple",
		"toordinal",
		"tzinfo",
		"utcoffset",
		"weekday",
		"year",
	}
}

func (d *dtValue) Attr(name string) (starlark.Value, error) {
	t := d.t
	num := map[string]int{"year": t.Year(), "month": int(t.Month()), "day": t.Day()}
	if !d.isDate {
		num["hour"], num["minute"], num["second"], num["microsecond"] = t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000
	}
	if v, ok := num[name]; ok {
		return starlark.MakeInt(v), nil
	}
	method := func(fn func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) (starlark.Value, error) {
		return py.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return fn(args, kwargs)
			}).
				BindReceiver(d),
			nil
	}
	switch name {
	case "weekday", "isoweekday":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			wd := (int(t.Weekday()) + 6) % 7
			if name == "isoweekday" {
				wd++
			}
			return starlark.MakeInt(wd), nil
		})
	case "date":
		if d.isDate {
			return nil, nil
		}
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return (&dtValue{t: t, isDate: true}).with(t), nil
		})
	case "time":
		if d.isDate {
			return nil, nil
		}
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return timeOfDay(t), nil
		})
	case "tzinfo":
		if d.isDate {
			return nil, nil
		}
		if d.tz == nil {
			return starlark.None, nil
		}
		return d.tz, nil
	case "utcoffset":
		if d.isDate {
			return nil, nil
		}
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if d.tz == nil {
				return starlark.None, nil
			}
			return &tdValue{d.tz.off * 1e6}, nil
		})
	case "astimezone":
		if d.isDate {
			return nil, nil
		}
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var tz starlark.Value = starlark.None
			if err := starlark.UnpackArgs("astimezone", args, kwargs, "tz?", &tz); err != nil {
				return nil, err
			}
			z := &tzValue{name: "UTC"} // the sandbox's local time zone
			if tz != starlark.None {
				var ok bool
				if z, ok = tz.(*tzValue); !ok {
					return nil, py.Errorf("TypeError", "tzinfo argument must be None or of a tzinfo subclass, not type '%s'", py.PyType(tz))
				}
			}
			return &dtValue{t: d.instant().Add(time.Duration(z.off) * time.Second), tz: z}, nil
		})
	case "isocalendar":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			y, w := t.ISOWeek()
			return isoCalendar(y, w, (int(t.Weekday())+6)%7+1), nil
		})
	case "timetuple":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return structTime(t, -1), nil
		})
	case "isoformat":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if d.isDate {
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
					return nil, err
				}
				return starlark.String(t.Format("2006-01-02")), nil
			}
			sep, timespec := "T", "auto"
			if err := starlark.UnpackArgs(name, args, kwargs, "sep?", &sep, "timespec?", &timespec); err != nil {
				return nil, err
			}
			if len([]rune(sep)) != 1 {
				return nil, py.Errorf("TypeError", "isoformat() argument 1 must be a unicode character, not str")
			}
			var clock string
			us := t.Nanosecond() / 1000
			switch timespec {
			case "auto":
				clock = t.Format("15:04:05")
				if us != 0 {
					clock += fmt.Sprintf(".%06d", us)
				}
			case "hours":
				clock = t.Format("15")
			case "minutes":
				clock = t.Format("15:04")
			case "seconds":
				clock = t.Format("15:04:05")
			case "milliseconds":
				clock = t.Format("15:04:05") + fmt.Sprintf(".%03d", us/1000)
			case "microseconds":
				clock = t.Format("15:04:05") + fmt.Sprintf(".%06d", us)
			default:
				return nil, py.Errorf("ValueError", "Unknown timespec value")
			}
			out := t.Format("2006-01-02") + sep + clock
			if d.tz != nil {
				out += offsetString(d.tz.off, ":")
			}
			return starlark.String(out), nil
		})
	case "strftime":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f string
			if err := starlark.UnpackPositionalArgs("strftime", args, kwargs, 1, &f); err != nil {
				return nil, err
			}
			return starlark.String(strftime(t, f, d.tz)), nil
		})
	case "timestamp":
		if d.isDate {
			return nil, nil
		}
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(float64(d.instant().UnixMicro()) / 1e6), nil
		})
	case "toordinal":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt(int(t.Sub(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)).Hours()/24) + 1), nil
		})
	case "replace":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			f := map[string]int{
				"year":        t.Year(),
				"month":       int(t.Month()),
				"day":         t.Day(),
				"hour":        t.Hour(),
				"minute":      t.Minute(),
				"second":      t.Second(),
				"microsecond": t.Nanosecond() / 1000,
			}
			tz := d.tz
			for _, kv := range kwargs {
				k, _ := starlark.AsString(kv[0])
				if k == "tzinfo" && !d.isDate {
					var err error
					if tz, err = tzArg(kv[1]); err != nil {
						return nil, err
					}
					continue
				}
				if _, ok := f[k]; !ok {
					return nil, py.Errorf("TypeError", "replace() got an unexpected keyword argument '%s'", k)
				}
				n, err := starlark.AsInt32(kv[1])
				if err != nil {
					return nil, err
				}
				f[k] = n
			}
			nd, err := makeDT(f["year"], f["month"], f["day"], f["hour"], f["minute"], f["second"], f["microsecond"], d.isDate)
			if err == nil {
				nd.tz = tz
			}
			return nd, err
		})
	}
	return nil, nil
}

func makeDT(y, mo, d, h, mi, s, us int, isDate bool) (*dtValue, error) {
	if mo < 1 || mo > 12 {
		return nil, py.Errorf("ValueError", "month must be in 1..12")
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, us*1000, time.UTC)
	if t.Day() != d || d < 1 {
		return nil, py.Errorf("ValueError", "day is out of range for month")
	}
	if h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return nil, py.Errorf("ValueError", "hour/minute/second out of range")
	}
	return &dtValue{t: t, isDate: isDate}, nil
}

var monthNames = []string{
	"January",
	"February",
	"March",
	"April",
	"May",
	"June",
	"July",
	"August",
	"September",
	"October",
	"November",
	"December",
}
var dayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// tzArg reads a tzinfo argument (None: naive).
func tzArg(v starlark.Value) (*tzValue, error) {
	if v == starlark.None {
		return nil, nil
	}
	z, ok := v.(*tzValue)
	if !ok {
		return nil, py.Errorf("TypeError", "tzinfo argument must be None or of a tzinfo subclass, not type '%s'", py.PyType(v))
	}
	return z, nil
}

// strftime formats t (a wall time, in the time zone tz; nil: naive).
func strftime(t time.Time, f string, tz *tzValue) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		wd := (int(t.Weekday()) + 6) % 7
		switch f[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'b':
			b.WriteString(monthNames[t.Month()-1][:3])
		case 'B':
			b.WriteString(monthNames[t.Month()-1])
		case 'a':
			b.WriteString(dayNames[wd][:3])
		case 'A':
			b.WriteString(dayNames[wd])
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'z':
			if tz != nil {
				b.WriteString(offsetString(tz.off, ""))
			}
		case 'Z':
			if tz != nil {
				b.WriteString(tz.PyStr())
			}
		case 'c':
			b.WriteString(asctime(t))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'X':
			b.WriteString(t.Format("15:04:05"))
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'u':
			fmt.Fprintf(&b, "%d", wd+1)
		case 'h':
			b.WriteString(monthNames[t.Month()-1][:3])
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// strptime parses s with a Python format.
func strptime(s, f string) (*dtValue, error) {
	fail := func() error {
		return py.Errorf("ValueError", "time data %s does not match format %s", py.Repr(starlark.String(s)), py.Repr(starlark.String(f)))
	}
	y, mo, d, h, mi, sec, us := 1900, 1, 1, 0, 0, 0, 0
	pm := -1
	i := 0
	num := func(max int) (int, bool) {
		j := i
		for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		i = j
		return n, true
	}
	// rng reads a number of at most digits digits in [lo, hi], the longest
	// that fits, as CPython's strptime regexes do (%m reads "1" of "13").
	rng := func(digits, lo, hi int) (int, bool) {
		for n := digits; n >= 1; n-- {
			if i+n > len(s) {
				continue
			}
			v, err := strconv.Atoi(s[i : i+n])
			if err != nil || s[i] < '0' || s[i] > '9' || v < lo || v > hi {
				continue
			}
			i += n
			return v, true
		}
		return 0, false
	}
	name := func(names []string) (int, bool) {
		for k, n := range names {
			for _, cand := range []string{n, n[:3]} {
				if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
					i += len(cand)
					return k, true
				}
			}
		}
		return 0, false
	}
	for k := 0; k < len(f); k++ {
		c := f[k]
		if c != '%' || k+1 == len(f) {
			if c == ' ' {
				for i < len(s) && s[i] == ' ' {
					i++
				}
				continue
			}
			if i >= len(s) || s[i] != c {
				return nil, fail()
			}
			i++
			continue
		}
		k++
		var ok bool
		switch f[k] {
		case 'Y':
			y, ok = num(4)
		case 'y':
			y, ok = num(2)
			if y < 69 {
				y += 2000
			} else {
				y += 1900
			}
		case 'm':
			mo, ok = rng(2, 1, 12)
		case 'd':
			d, ok = rng(2, 1, 31)
		case 'H':
			h, ok = rng(2, 0, 23)
		case 'I':
			h, ok = rng(2, 1, 12)
		case 'M':
			mi, ok = rng(2, 0, 59)
		case 'S':
			sec, ok = rng(2, 0, 61)
		case 'f':
			start := i
			us, ok = num(6)
			for n := i - start; n < 6; n++ {
				us *= 10
			}
		case 'p':
			switch {
			case len(s)-i >= 2 && strings.EqualFold(s[i:i+2], "AM"):
				pm, ok = 0, true
				i += 2
			case len(s)-i >= 2 && strings.EqualFold(s[i:i+2], "PM"):
				pm, ok = 1, true
				i += 2
			}
		case 'b', 'B':
			var m int
			m, ok = name(monthNames)
			mo = m + 1
		case 'a', 'A':
			_, ok = name(dayNames)
		case 'j':
			_, ok = rng(3, 1, 366)
		case '%':
			ok = i < len(s) && s[i] == '%'
			i++
		default:
			return nil, py.Errorf("ValueError", "'%c' is a bad directive in format %s", f[k], py.Repr(starlark.String(f)))
		}
		if !ok {
			return nil, fail()
		}
	}
	if i != len(s) {
		return nil, py.Errorf("ValueError", "unconverted data remains: %s", s[i:])
	}
	if pm == 1 && h < 12 {
		h += 12
	} else if pm == 0 && h == 12 {
		h = 0
	}
	return makeDT(y, mo, d, h, mi, sec, us, false)
}

func (td *tdValue) Type() string           { return "timedelta" }
func (td *tdValue) PyTypeObj() *py.TypeObj { return typeTimedelta }
func (td *tdValue) Freeze()                {}
func (td *tdValue) Truth() starlark.Bool   { return td.us != 0 }
func (td *tdValue) Hash() (uint32, error)  { return uint32(td.us), nil }
func (td *tdValue) parts() (days, secs, us int64) {
	days = td.us / 86400e6
	rem := td.us % 86400e6
	if rem < 0 {
		days--
		rem += 86400e6
	}
	return days, rem / 1e6, rem % 1e6
}
func (td *tdValue) String() string { return td.PyStr() }
func (td *tdValue) PyStr() string {
	days, secs, us := td.parts()
	s := fmt.Sprintf("%d:%02d:%02d", secs/3600, secs%3600/60, secs%60)
	if us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if days != 0 {
		plural := "s"
		if days == 1 || days == -1 {
			plural = ""
		}
		s = fmt.Sprintf("%d day%s, %s", days, plural, s)
	}
	return s
}
func (td *tdValue) WriteRepr(r *py.Renderer) {
	days, secs, us := td.parts()
	var parts []string
	if days != 0 {
		parts = append(parts, fmt.Sprintf("days=%d", days))
	}
	if secs != 0 {
		parts = append(parts, fmt.Sprintf("seconds=%d", secs))
	}
	if us != 0 {
		parts = append(parts, fmt.Sprintf("microseconds=%d", us))
	}
	if len(parts) == 0 {
		parts = []string{"0"}
	}
	r.B.WriteString("datetime.timedelta(" + strings.Join(parts, ", ") + ")")
}
func (td *tdValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*tdValue)
	c := 0
	if td.us < o.us {
		c = -1
	} else if td.us > o.us {
		c = 1
	}
	return py.CmpResult(op, c), nil
}
func (td *tdValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch o := y.(type) {
	case *tdValue:
		switch op {
		case syntax.PLUS:
			return &tdValue{td.us + o.us}, nil
		case syntax.MINUS:
			if side == starlark.Left {
				return &tdValue{td.us - o.us}, nil
			}
			return &tdValue{o.us - td.us}, nil
		case syntax.SLASH:
			if side == starlark.Left && o.us != 0 {
				return starlark.Float(float64(td.us) / float64(o.us)), nil
			}
		}
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(o)
		switch {
		case op == syntax.STAR:
			return &tdValue{int64(math.RoundToEven(float64(td.us) * f))}, nil
		case op == syntax.SLASH && side == starlark.Left && f != 0:
			return &tdValue{int64(math.RoundToEven(float64(td.us) / f))}, nil
		}
	}
	return nil, nil
}
func (td *tdValue) AttrNames() []string {
	return []string{"days", "seconds", "microseconds", "total_seconds"}
}
func (td *tdValue) Attr(name string) (starlark.Value, error) {
	days, secs, us := td.parts()
	switch name {
	case "days":
		return starlark.MakeInt64(days), nil
	case "seconds":
		return starlark.MakeInt64(secs), nil
	case "microseconds":
		return starlark.MakeInt64(us), nil
	case "total_seconds":
		return py.NewBuiltin("total_seconds", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				return starlark.Float(float64(td.us) / 1e6), nil
			}).
				BindReceiver(td),
			nil
	}
	return nil, nil
}

// clockFn builds datetime.now/utcnow/today and date.today: they read the
// session's clock (see time.go). tzOK: the function takes tz.
func clockFn(name string, isDate, tzOK bool) starlark.Value {
	return py.NewBuiltin(
		name,
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var tz starlark.Value = starlark.None
			if tzOK {
				if err := starlark.UnpackArgs(name, args, kwargs, "tz?", &tz); err != nil {
					return nil, err
				}
			} else if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			z, err := tzArg(tz)
			if err != nil {
				return nil, err
			}
			return atZone(nowUTC(thread), isDate, z), nil
		},
	)
}

// atZone is the datetime (or date) of the UTC time t in the time zone z
// (nil: naive local time, which is UTC in the sandbox).
func atZone(t time.Time, isDate bool, z *tzValue) *dtValue {
	if z != nil {
		t = t.Add(time.Duration(z.off) * time.Second)
	}
	return (&dtValue{isDate: isDate, tz: z}).with(t)
}

// fromTimestampFn builds datetime.fromtimestamp, utcfromtimestamp and
// date.fromtimestamp.
func fromTimestampFn(name string, isDate, tzOK bool) starlark.Value {
	return py.NewBuiltin(
		name,
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ts starlark.Value
			var tz starlark.Value = starlark.None
			var err error
			if tzOK {
				err = starlark.UnpackArgs(name, args, kwargs, "timestamp", &ts, "tz?", &tz)
			} else {
				err = starlark.UnpackPositionalArgs(name, args, kwargs, 1, &ts)
			}
			if err != nil {
				return nil, err
			}
			f, err := py.FloatArg(name, ts)
			if err != nil {
				return nil, err
			}
			t, err := fromTimestamp(f)
			if err != nil {
				return nil, err
			}
			z, err := tzArg(tz)
			if err != nil {
				return nil, err
			}
			return atZone(t, isDate, z), nil
		},
	)
}

// completeDatetimeTypes completes the types of the datetime module, once,
// on its first import (datetime.time: completeTimeOfDayType).
var completeDatetimeTypes = sync.OnceFunc(func() {
	intArgs := func(name string, args starlark.Tuple, kwargs []starlark.Tuple, names []string, min int) ([]int, error) {
		vals := make([]int, len(names))
		ptrs := make([]any, 0, 2*len(names))
		for i, n := range names {
			if i >= min {
				n += "?"
			}
			ptrs = append(ptrs, n, &vals[i])
		}
		return vals, starlark.UnpackArgs(name, args, kwargs, ptrs...)
	}
	*typeDatetime = py.TypeObj{PyName: "datetime", Check: func(v starlark.Value) bool { d, ok := v.(*dtValue); return ok && !d.isDate }}
	typeDatetime.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var tz *tzValue
		if len(args) == 8 {
			var err error
			if tz, err = tzArg(args[7]); err != nil {
				return nil, err
			}
			args = args[:7]
		}
		for i, kv := range kwargs {
			if k, _ := starlark.AsString(kv[0]); k == "tzinfo" {
				var err error
				if tz, err = tzArg(kv[1]); err != nil {
					return nil, err
				}
				kwargs = append(kwargs[:i:i], kwargs[i+1:]...)
				break
			}
		}
		v, err := intArgs("datetime", args, kwargs, []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}, 3)
		if err != nil {
			return nil, err
		}
		d, err := makeDT(v[0], v[1], v[2], v[3], v[4], v[5], v[6], false)
		if err == nil {
			d.tz = tz
		}
		return d, err
	}
	*typeTimezone = py.TypeObj{PyName: "timezone", Check: py.IsType[*tzValue]}
	typeTimezone.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var off starlark.Value
		var name string
		if err := starlark.UnpackArgs("timezone", args, kwargs, "offset", &off, "name?", &name); err != nil {
			return nil, err
		}
		td, ok := off.(*tdValue)
		if !ok {
			return nil, py.Errorf("TypeError", "timezone() argument 1 must be datetime.timedelta, not %s", py.PyType(off))
		}
		if td.us%1e6 != 0 || td.us <= -86400e6 || td.us >= 86400e6 {
			return nil, py.Errorf(
				"ValueError",
				"offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24) (whole seconds in the sandbox), not %s",
				py.Repr(td),
			)
		}
		if td.us == 0 && name == "" {
			return utcZone, nil
		}
		return &tzValue{off: td.us / 1e6, name: name}, nil
	}
	typeTimezone.Attrs = starlark.StringDict{"utc": utcZone}
	*typeDate = py.TypeObj{PyName: "date", Check: py.IsType[*dtValue]}
	typeDate.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := intArgs("date", args, kwargs, []string{"year", "month", "day"}, 3)
		if err != nil {
			return nil, err
		}
		return makeDT(v[0], v[1], v[2], 0, 0, 0, 0, true)
	}
	*typeTimedelta = py.TypeObj{PyName: "timedelta", Check: py.IsType[*tdValue]}
	typeTimedelta.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		names := []string{"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
		scale := []float64{86400e6, 1e6, 1, 1e3, 60e6, 3600e6, 7 * 86400e6}
		vals := make([]starlark.Value, len(names))
		ptrs := make([]any, 0, 2*len(names))
		for i, n := range names {
			ptrs = append(ptrs, n+"?", &vals[i])
		}
		if err := starlark.UnpackArgs("timedelta", args, kwargs, ptrs...); err != nil {
			return nil, err
		}
		total := 0.0
		for i, v := range vals {
			if v == nil {
				continue
			}
			f, err := py.FloatArg("timedelta", v)
			if err != nil {
				return nil, err
			}
			total += f * scale[i]
		}
		if r := math.RoundToEven(total); !(math.Abs(r) < math.MaxInt64) {
			// Kept in int64 microseconds: ±106,751,991 days (CPython's
			// limit, 999,999,999 days, is wider).
			return nil, py.Errorf("OverflowError", "timedelta of %.6g days is out of range: its magnitude must be under %d days here",
				total/86400e6, int64(math.MaxInt64/int64(86400e6)))
		}
		return &tdValue{int64(math.RoundToEven(total))}, nil
	}
	parse := func(isDate bool) starlark.Value {
		return py.NewBuiltin(
			"fromisoformat",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var s string
				if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
					return nil, err
				}
				for _, layout := range []string{"2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
					if t, err := time.Parse(layout, s); err == nil {
						return (&dtValue{isDate: isDate}).with(t), nil
					}
					if isDate || len(layout) <= 10 {
						continue
					}
					// An offset: +HH:MM, or Z (3.11).
					if t, err := time.Parse(layout+"Z07:00", s); err == nil {
						_, off := t.Zone()
						z := utcZone
						if off != 0 {
							z = &tzValue{off: int64(off)}
						}
						return &dtValue{
							t:  time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC),
							tz: z,
						}, nil
					}
				}
				return nil, py.Errorf("ValueError", "Invalid isoformat string: %s", py.Repr(starlark.String(s)))
			},
		)
	}
	typeDatetime.Attrs = starlark.StringDict{
		"strptime": py.NewBuiltin(
			"strptime",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var s, f string
				if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 2, &s, &f); err != nil {
					return nil, err
				}
				return strptime(s, f)
			},
		),
		"fromisoformat": parse(false),
		"combine": py.NewBuiltin(
			"combine",
			func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var d *dtValue
				var tv *timeValue
				if err := starlark.UnpackPositionalArgs("combine", args, kwargs, 2, &d, &tv); err != nil {
					return nil, err
				}
				day := time.Date(d.t.Year(), d.t.Month(), d.t.Day(), 0, 0, 0, 0, time.UTC)
				return &dtValue{t: tv.wall(day)}, nil
			},
		),
		"now":              clockFn("now", false, true),
		"utcnow":           clockFn("utcnow", false, false),
		"today":            clockFn("today", false, false),
		"fromtimestamp":    fromTimestampFn("fromtimestamp", false, true),
		"utcfromtimestamp": fromTimestampFn("utcfromtimestamp", false, false),
	}
	typeDate.Attrs = starlark.StringDict{
		"fromisoformat": parse(true),
		"today":         clockFn("today", true, false),
		"fromtimestamp": fromTimestampFn("fromtimestamp", true, false),
	}
})

var _ = py.RegisterModule("datetime", datetimeModule)

// datetimeModule builds the datetime module on its first import.
func datetimeModule() *py.Module {
	completeDatetimeTypes()
	completeTimeOfDayType()
	return py.NewModule("datetime", nil, starlark.StringDict{
		"datetime":  typeDatetime,
		"date":      typeDate,
		"timedelta": typeTimedelta,
		"time":      typeTime,
		"timezone":  typeTimezone,
	})
}

// Unary implements -td and +td.
func (td *tdValue) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS:
		return &tdValue{-td.us}, nil
	case syntax.PLUS:
		return td, nil
	}
	return nil, nil
}

// typeIsoCalendarDate is datetime.IsoCalendarDate, what isocalendar() returns.
var typeIsoCalendarDate = sync.OnceValue(func() *py.TypeObj {
	t, err := namedtuple(nil, nil, starlark.Tuple{starlark.String("datetime.IsoCalendarDate"), starlark.String("year week weekday")}, nil)
	if err != nil {
		panic(err)
	}
	return t.(*py.TypeObj)
})

// isoCalendar builds the IsoCalendarDate (year, week, weekday).
func isoCalendar(year, week, weekday int) starlark.Value {
	v, _ := typeIsoCalendarDate().Call(nil, starlark.Tuple{starlark.MakeInt(year), starlark.MakeInt(week), starlark.MakeInt(weekday)}, nil)
	return v
}
