package pylib

import (
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// urlQuote is urllib.parse.quote over the UTF-8 bytes of s.
func urlQuote(s string, safe string) string {
	const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (strings.IndexByte(unreserved, c) >= 0 || strings.IndexByte(safe, c) >= 0) {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

func urlQuotePlus(s, safe string) string {
	if strings.Contains(s, " ") {
		return strings.ReplaceAll(urlQuote(s, safe+" "), " ", "+")
	}
	return urlQuote(s, safe)
}

// urlUnquote is urllib.parse.unquote (UTF-8, invalid bytes replaced).
func urlUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b = append(b, v[0])
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func strOrBytes(fn string, v starlark.Value) (string, error) {
	switch x := v.(type) {
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return string(x), nil
	}
	return "", py.Errorf("TypeError", "%s() expected str, bytes or os.PathLike object, not %s", fn, py.PyType(v))
}

// parseQSL is urllib.parse.parse_qsl.
func parseQSL(qs string, keepBlank, strict bool, sep string) ([][2]string, error) {
	var out [][2]string
	for _, field := range strings.Split(qs, sep) {
		if field == "" {
			continue
		}
		nv := strings.SplitN(field, "=", 2)
		if len(nv) != 2 {
			if strict {
				return nil, py.Errorf("ValueError", "bad query field: %s", strconv.Quote(field))
			}
			if !keepBlank {
				continue
			}
			nv = append(nv, "")
		}
		if nv[1] != "" || keepBlank {
			out = append(out, [2]string{urlUnquote(strings.ReplaceAll(nv[0], "+", " ")), urlUnquote(strings.ReplaceAll(nv[1], "+", " "))})
		}
	}
	return out, nil
}

var (
	usesParams = map[string]bool{
		"":         true,
		"ftp":      true,
		"hdl":      true,
		"prospero": true,
		"http":     true,
		"imap":     true,
		"https":    true,
		"shttp":    true,
		"rtsp":     true,
		"rtspu":    true,
		"sip":      true,
		"sips":     true,
		"mms":      true,
		"sftp":     true,
		"tel":      true,
	}
	usesNetloc = map[string]bool{
		"":         true,
		"ftp":      true,
		"http":     true,
		"gopher":   true,
		"nntp":     true,
		"telnet":   true,
		"imap":     true,
		"wais":     true,
		"file":     true,
		"mms":      true,
		"https":    true,
		"shttp":    true,
		"snews":    true,
		"prospero": true,
		"rtsp":     true,
		"rtspu":    true,
		"rsync":    true,
		"svn":      true,
		"svn+ssh":  true,
		"sftp":     true,
		"nfs":      true,
		"git":      true,
		"git+ssh":  true,
		"ws":       true,
		"wss":      true,
	}
)

// urlSplit is urllib.parse.urlsplit.
func urlSplit(url, scheme string, fragments bool) ([5]string, error) {
	url = strings.TrimLeft(
		url,
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ",
	)
	url = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(url)
	var netloc, query, fragment string
	if i := strings.IndexByte(url, ':'); i > 0 && url[0] < 0x80 && isASCIILetter(url[0]) {
		ok := true
		for j := 0; j < i; j++ {
			c := url[j]
			if !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
				ok = false
				break
			}
		}
		if ok {
			scheme, url = strings.ToLower(url[:i]), url[i+1:]
		}
	}
	if strings.HasPrefix(url, "//") {
		end := len(url)
		for _, d := range "/?#" {
			if k := strings.IndexRune(url[2:], d); k >= 0 && k+2 < end {
				end = k + 2
			}
		}
		netloc, url = url[2:end], url[end:]
		if strings.Contains(netloc, "[") != strings.Contains(netloc, "]") {
			return [5]string{}, py.Errorf("ValueError", "Invalid IPv6 URL")
		}
	}
	if fragments {
		if k := strings.IndexByte(url, '#'); k >= 0 {
			url, fragment = url[:k], url[k+1:]
		}
	}
	if k := strings.IndexByte(url, '?'); k >= 0 {
		url, query = url[:k], url[k+1:]
	}
	return [5]string{scheme, netloc, url, query, fragment}, nil
}

// splitParams splits the ;params off the last segment of path, as
// urlparse does for the schemes that use them.
func splitParams(scheme, path string) (string, string) {
	if !usesParams[scheme] || !strings.Contains(path, ";") {
		return path, ""
	}
	i := strings.IndexByte(path, ';')
	if k := strings.LastIndexByte(path, '/'); k >= 0 {
		i = strings.IndexByte(path[k:], ';')
		if i >= 0 {
			i += k
		}
	}
	if i < 0 {
		return path, ""
	}
	return path[:i], path[i+1:]
}

// urlParse is urllib.parse.urlparse: scheme, netloc, path, params, query,
// fragment.
func urlParse(url, scheme string, fragments bool) ([6]string, error) {
	p, err := urlSplit(url, scheme, fragments)
	if err != nil {
		return [6]string{}, err
	}
	path, params := splitParams(p[0], p[2])
	return [6]string{p[0], p[1], path, params, p[3], p[4]}, nil
}

// urlUnparse is urllib.parse.urlunparse.
func urlUnparse(p [6]string) string {
	path := p[2]
	if p[3] != "" {
		path += ";" + p[3]
	}
	return urlUnsplit(p[0], p[1], path, p[4], p[5])
}

var usesRelative = map[string]bool{
	"":         true,
	"ftp":      true,
	"http":     true,
	"gopher":   true,
	"nntp":     true,
	"imap":     true,
	"wais":     true,
	"file":     true,
	"https":    true,
	"shttp":    true,
	"mms":      true,
	"prospero": true,
	"rtsp":     true,
	"rtsps":    true,
	"rtspu":    true,
	"sftp":     true,
	"svn":      true,
	"svn+ssh":  true,
	"ws":       true,
	"wss":      true,
}

// urlJoin is CPython 3.11's urllib.parse.urljoin (RFC 3986 resolution).
func urlJoin(base, url string, fragments bool) (string, error) {
	if base == "" {
		return url, nil
	}
	if url == "" {
		return base, nil
	}
	b, err := urlParse(base, "", fragments)
	if err != nil {
		return "", err
	}
	u, err := urlParse(url, b[0], fragments)
	if err != nil {
		return "", err
	}
	scheme, netloc, path, params, query, fragment := u[0], u[1], u[2], u[3], u[4], u[5]
	if scheme != b[0] || !usesRelative[scheme] {
		return url, nil
	}
	if usesNetloc[scheme] {
		if netloc != "" {
			return urlUnparse(u), nil
		}
		netloc = b[1]
	}
	if path == "" && params == "" {
		path, params = b[2], b[3]
		if query == "" {
			query = b[4]
		}
		return urlUnparse([6]string{scheme, netloc, path, params, query, fragment}), nil
	}
	baseParts := strings.Split(b[2], "/")
	if baseParts[len(baseParts)-1] != "" {
		baseParts = baseParts[:len(baseParts)-1]
	}
	var segments []string
	if strings.HasPrefix(path, "/") {
		segments = strings.Split(path, "/")
	} else {
		segments = append(baseParts, strings.Split(path, "/")...)
		if len(segments) > 2 {
			kept := []string{segments[0]}
			for _, s := range segments[1 : len(segments)-1] {
				if s != "" {
					kept = append(kept, s)
				}
			}
			segments = append(kept, segments[len(segments)-1])
		}
	}
	var resolved []string
	for _, seg := range segments {
		switch seg {
		case "..":
			if len(resolved) > 0 {
				resolved = resolved[:len(resolved)-1]
			}
		case ".":
		default:
			resolved = append(resolved, seg)
		}
	}
	if last := segments[len(segments)-1]; last == "." || last == ".." {
		resolved = append(resolved, "")
	}
	joined := strings.Join(resolved, "/")
	if joined == "" {
		joined = "/"
	}
	return urlUnparse([6]string{scheme, netloc, joined, params, query, fragment}), nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func urlUnsplit(scheme, netloc, url, query, fragment string) string {
	if netloc != "" || (scheme != "" && usesNetloc[scheme] && !strings.HasPrefix(url, "//")) {
		if url != "" && url[0] != '/' {
			url = "/" + url
		}
		url = "//" + netloc + url
	}
	if scheme != "" {
		url = scheme + ":" + url
	}
	if query != "" {
		url += "?" + query
	}
	if fragment != "" {
		url += "#" + fragment
	}
	return url
}

// typeParseResult and typeSplitResult are the named tuple types of
// urlparse's and urlsplit's results, built on first use.
var (
	typeParseResult = sync.OnceValue(func() *py.TypeObj {
		return urlResultType("ParseResult", "scheme netloc path params query fragment")
	})
	typeSplitResult = sync.OnceValue(func() *py.TypeObj {
		return urlResultType("SplitResult", "scheme netloc path query fragment")
	})
)

func urlResultType(name, fields string) *py.TypeObj {
	t, err := namedtuple(nil, nil, starlark.Tuple{starlark.String(name), starlark.String(fields)}, nil)
	if err != nil {
		panic(err)
	}
	return t.(*py.TypeObj)
}

// urlResult is a ParseResult or SplitResult: a named tuple with the
// hostname, port, username, password and geturl() of CPython's.
type urlResult struct{ *namedTuple }

func newURLResult(t *py.TypeObj, parts ...string) starlark.Value {
	vals := make(starlark.Tuple, len(parts))
	for i, p := range parts {
		vals[i] = starlark.String(p)
	}
	nt, _ := t.Call(nil, vals, nil)
	return urlResult{nt.(*namedTuple)}
}

func (u urlResult) part(name string) string {
	v, _ := u.namedTuple.Attr(name)
	s, _ := starlark.AsString(v)
	return s
}

func (u urlResult) AttrNames() []string {
	return append(u.namedTuple.AttrNames(), "geturl", "hostname", "password", "port", "username")
}

func (u urlResult) Attr(name string) (starlark.Value, error) {
	netloc := u.part("netloc")
	userinfo, hostport := "", netloc
	hasUser := false
	if k := strings.LastIndexByte(netloc, '@'); k >= 0 {
		userinfo, hostport, hasUser = netloc[:k], netloc[k+1:], true
	}
	var host, port string
	hasPort := false
	if strings.HasPrefix(hostport, "[") {
		if k := strings.IndexByte(hostport, ']'); k >= 0 {
			host = hostport[1:k]
			if rest := hostport[k+1:]; strings.HasPrefix(rest, ":") {
				port, hasPort = rest[1:], true
			}
		}
	} else if k := strings.IndexByte(hostport, ':'); k >= 0 {
		host, port, hasPort = hostport[:k], hostport[k+1:], true
	} else {
		host = hostport
	}
	switch name {
	case "hostname":
		if host == "" {
			return starlark.None, nil
		}
		return starlark.String(strings.ToLower(host)), nil
	case "port":
		if !hasPort || port == "" {
			return starlark.None, nil
		}
		n, err := strconv.Atoi(port)
		if err != nil || !isDigits(port) {
			return nil, py.Errorf("ValueError", "Port could not be cast to integer value as '%s'", port)
		}
		if n < 0 || n > 65535 {
			return nil, py.Errorf("ValueError", "Port out of range 0-65535")
		}
		return starlark.MakeInt(n), nil
	case "username", "password":
		if !hasUser {
			return starlark.None, nil
		}
		user, pass, hasPass := strings.Cut(userinfo, ":")
		if name == "username" {
			return starlark.String(user), nil
		}
		if !hasPass {
			return starlark.None, nil
		}
		return starlark.String(pass), nil
	case "geturl":
		return py.NewBuiltin("geturl", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			path := u.part("path")
			if p := u.part("params"); len(u.Tuple) == 6 && p != "" {
				path += ";" + p
			}
			return starlark.String(urlUnsplit(u.part("scheme"), netloc, path, u.part("query"), u.part("fragment"))), nil
		}), nil
	}
	return u.namedTuple.Attr(name)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func urllibParseModule() *py.Module {
	quoteFn := func(name string, plus bool) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s starlark.Value
			safe := "/"
			if plus {
				safe = ""
			}
			var enc, errs starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "string", &s, "safe?", &safe, "encoding?", &enc, "errors?", &errs); err != nil {
				return nil, err
			}
			str, err := strOrBytes(name, s)
			if err != nil {
				return nil, err
			}
			if err := py.CheckAlloc(thread, int64(len(str))*3); err != nil {
				return nil, err
			}
			if plus {
				return starlark.String(urlQuotePlus(str, safe)), nil
			}
			return starlark.String(urlQuote(str, safe)), nil
		}
	}
	unquoteFn := func(name string, plus bool) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			var enc, errs starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "string", &s, "encoding?", &enc, "errors?", &errs); err != nil {
				return nil, err
			}
			if plus {
				s = strings.ReplaceAll(s, "+", " ")
			}
			return starlark.String(urlUnquote(s)), nil
		}
	}
	qsArgs := func(name string, args starlark.Tuple, kwargs []starlark.Tuple) ([][2]string, error) {
		var qs string
		keep, strict := false, false
		var maxFields starlark.Value
		sep := "&"
		var enc, errs starlark.Value
		if err := starlark.UnpackArgs(name, args, kwargs, "qs", &qs, "keep_blank_values?", &keep, "strict_parsing?", &strict, "encoding?", &enc, "errors?", &errs, "max_num_fields?", &maxFields, "separator?", &sep); err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, py.Errorf("ValueError", "Separator must be of type string or bytes.")
		}
		return parseQSL(qs, keep, strict, sep)
	}
	urlArgs := func(name string, args starlark.Tuple, kwargs []starlark.Tuple) ([5]string, error) {
		var url string
		scheme := ""
		fragments := true
		if err := starlark.UnpackArgs(name, args, kwargs, "urlstring", &url, "scheme?", &scheme, "allow_fragments?", &fragments); err != nil {
			return [5]string{}, err
		}
		return urlSplit(url, scheme, fragments)
	}
	m := py.NewModule("urllib.parse", map[string]py.BuiltinFn{
		"quote":        quoteFn("quote", false),
		"quote_plus":   quoteFn("quote_plus", true),
		"unquote":      unquoteFn("unquote", false),
		"unquote_plus": unquoteFn("unquote_plus", true),
		"parse_qsl": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			pairs, err := qsArgs("parse_qsl", args, kwargs)
			if err != nil {
				return nil, err
			}
			out := make([]starlark.Value, len(pairs))
			for i, p := range pairs {
				out[i] = starlark.Tuple{starlark.String(p[0]), starlark.String(p[1])}
			}
			return starlark.NewList(out), nil
		},
		"parse_qs": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			pairs, err := qsArgs("parse_qs", args, kwargs)
			if err != nil {
				return nil, err
			}
			d := starlark.NewDict(len(pairs))
			for _, p := range pairs {
				k := starlark.String(p[0])
				v, found, _ := d.Get(k)
				if !found {
					v = starlark.NewList(nil)
					_ = d.SetKey(k, v)
				}
				_ = v.(*starlark.List).Append(starlark.String(p[1]))
			}
			return d, nil
		},
		"urlencode": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var query, quoteVia starlark.Value
			doseq := false
			safe := ""
			var enc, errs starlark.Value
			if err := starlark.UnpackArgs("urlencode", args, kwargs, "query", &query, "doseq?", &doseq, "safe?", &safe, "encoding?", &enc, "errors?", &errs, "quote_via?", &quoteVia); err != nil {
				return nil, err
			}
			var items []starlark.Tuple
			if d, ok := query.(starlark.IterableMapping); ok {
				items = d.Items()
			} else {
				elems, err := py.Collect(thread, query)
				if err != nil {
					return nil, err
				}
				for _, e := range elems {
					t, ok := e.(starlark.Tuple)
					if !ok || len(t) != 2 {
						return nil, py.Errorf("TypeError", "not a valid non-string sequence or mapping object")
					}
					items = append(items, t)
				}
			}
			q := func(v starlark.Value) (string, error) {
				var s string
				switch x := v.(type) {
				case starlark.String:
					s = string(x)
				case starlark.Bytes:
					s = string(x)
				default:
					s = py.Str(v)
				}
				if quoteVia != nil && quoteVia != starlark.None {
					r, err := starlark.Call(thread, quoteVia, starlark.Tuple{starlark.String(s), starlark.String(safe)}, nil)
					if err != nil {
						return "", err
					}
					rs, _ := starlark.AsString(r)
					return rs, nil
				}
				return urlQuotePlus(s, safe), nil
			}
			var parts []string
			for _, kv := range items {
				k, err := q(kv[0])
				if err != nil {
					return nil, err
				}
				_, isStr := kv[1].(starlark.String)
				_, isBytes := kv[1].(starlark.Bytes)
				if doseq && !isStr && !isBytes {
					if it, ok := kv[1].(starlark.Iterable); ok {
						elems, err := py.Collect(thread, it)
						if err != nil {
							return nil, err
						}
						for _, e := range elems {
							v, err := q(e)
							if err != nil {
								return nil, err
							}
							parts = append(parts, k+"="+v)
						}
						continue
					}
				}
				v, err := q(kv[1])
				if err != nil {
					return nil, err
				}
				parts = append(parts, k+"="+v)
			}
			return starlark.String(strings.Join(parts, "&")), nil
		},
		"urlparse": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := urlArgs("urlparse", args, kwargs)
			if err != nil {
				return nil, err
			}
			path, params := splitParams(p[0], p[2])
			return newURLResult(typeParseResult(), p[0], p[1], path, params, p[3], p[4]), nil
		},
		"urljoin": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var base, url string
			fragments := true
			if err := starlark.UnpackArgs("urljoin", args, kwargs, "base", &base, "url", &url, "allow_fragments?", &fragments); err != nil {
				return nil, err
			}
			s, err := urlJoin(base, url, fragments)
			return starlark.String(s), err
		},
		"urlsplit": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := urlArgs("urlsplit", args, kwargs)
			if err != nil {
				return nil, err
			}
			return newURLResult(typeSplitResult(), p[:]...), nil
		},
		"urlunparse": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			parts, err := urlParts("urlunparse", thread, args, kwargs, 6)
			if err != nil {
				return nil, err
			}
			path := parts[2]
			if parts[3] != "" {
				path += ";" + parts[3]
			}
			return starlark.String(urlUnsplit(parts[0], parts[1], path, parts[4], parts[5])), nil
		},
		"urlunsplit": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			parts, err := urlParts("urlunsplit", thread, args, kwargs, 5)
			if err != nil {
				return nil, err
			}
			return starlark.String(urlUnsplit(parts[0], parts[1], parts[2], parts[3], parts[4])), nil
		},
	}, starlark.StringDict{"ParseResult": typeParseResult(), "SplitResult": typeSplitResult()})
	return m
}

func urlParts(fn string, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple, n int) ([]string, error) {
	x, err := py.OneArg(fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	elems, err := py.Collect(thread, x)
	if err != nil {
		return nil, err
	}
	if len(elems) != n {
		return nil, py.Errorf("ValueError", "not enough values to unpack (expected %d, got %d)", n, len(elems))
	}
	out := make([]string, n)
	for i, e := range elems {
		if e != starlark.None {
			out[i], _ = starlark.AsString(e)
		}
	}
	return out, nil
}

var urllibParse = sync.OnceValue(urllibParseModule)
var (
	_ = py.RegisterModule("urllib", urllibModule)
	_ = py.RegisterModule("urllib.parse", urllibParse)
)

// urllibModule is the urllib package: only urllib.parse is available.
func urllibModule() *py.Module {
	return &py.Module{Name: "urllib", Members: starlark.StringDict{"parse": urllibParse()}}
}
