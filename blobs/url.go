package blobs

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// urlForm is what a store URL looks like, for error messages.
const urlForm = "want s3://BUCKET[/PREFIX]?endpoint=http://HOST:PORT&region=REGION (endpoint and region optional)"

// location is a parsed store URL.
type location struct {
	bucket   string
	prefix   string // "" or ending in "/"
	endpoint string // "" for the SDK's default (AWS)
	region   string // "" for the SDK's default (AWS_REGION)
}

// String returns the location as a URL, with nothing secret in it.
func (l location) String() string {
	s := "s3://" + l.bucket + "/" + l.prefix
	if l.endpoint != "" {
		s += " at " + l.endpoint
	}
	return s
}

// parseURL parses a store URL: s3://BUCKET[/PREFIX]?endpoint=...&region=...
func parseURL(raw string) (location, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadURL, fmt.Sprintf(format, args...), urlForm)
	}
	if strings.TrimSpace(raw) == "" {
		return location{}, bad("empty URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL
		}
		return location{}, bad("cannot parse: %v", err)
	}
	if u.User != nil {
		return location{}, bad("credentials do not belong in the URL (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	}
	if u.Scheme != "s3" {
		return location{}, bad("URL %q: scheme %q is not s3", u.Redacted(), u.Scheme)
	}
	if err := checkBucket(u.Host); err != nil {
		return location{}, bad("URL %q: %v", u.Redacted(), err)
	}
	loc := location{bucket: u.Host, prefix: strings.Trim(u.Path, "/")}
	if loc.prefix != "" {
		loc.prefix += "/"
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return location{}, bad("URL %q: query: %v", u.Redacted(), err)
	}
	for k, vs := range q {
		if len(vs) != 1 {
			return location{}, bad("URL %q: %s given %d times", u.Redacted(), k, len(vs))
		}
		switch v := vs[0]; k {
		case "endpoint":
			e, err := url.Parse(v)
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" ||
				strings.Trim(e.Path, "/") != "" || e.User != nil || e.RawQuery != "" {
				return location{}, bad("URL %q: endpoint %q is not http(s)://HOST[:PORT]", u.Redacted(), v)
			}
			loc.endpoint = e.Scheme + "://" + e.Host
		case "region":
			if v == "" {
				return location{}, bad("URL %q: empty region", u.Redacted())
			}
			loc.region = v
		default:
			return location{}, bad("URL %q: unknown parameter %q", u.Redacted(), k)
		}
	}
	return loc, nil
}

// checkBucket reports whether name is a valid S3 bucket name.
func checkBucket(name string) error {
	if name == "" {
		return errors.New("no bucket")
	}
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("bucket %q: want 3 to 63 characters", name)
	}
	for i, c := range name {
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && c != '-' && c != '.' || !alnum && (i == 0 || i == len(name)-1) {
			return fmt.Errorf(
				"bucket %q: want lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit",
				name,
			)
		}
	}
	return nil
}
