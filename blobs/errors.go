package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Sentinel errors.
var (
	// ErrNotFound reports a digest with no object in the store.
	ErrNotFound = errors.New("blobs: no such blob")
	// ErrDigest reports bytes whose sha256 is not the digest they were
	// asked for under (a corrupt or truncated object): nothing is cached.
	ErrDigest = errors.New("blobs: content does not match its digest")
	// ErrNoBucket reports a store URL naming a bucket that does not exist.
	ErrNoBucket = errors.New("blobs: no such bucket")
	// ErrBadURL reports a store URL that cannot be parsed or used.
	ErrBadURL = errors.New("blobs: bad store URL")
	// ErrUnavailable reports a store that could not be reached or failed on
	// its side (connection refused or reset, timeouts, 5xx, throttling)
	// after the SDK's own retries: the operation may succeed if retried
	// later. The cause is wrapped with it.
	ErrUnavailable = errors.New("blobs: store unavailable")
)

// errBadDigest reports a digest that is not 64 lowercase hex digits.
var errBadDigest = errors.New("blobs: bad digest (want 64 lowercase hex digits of a sha256)")

// httpStatus returns the HTTP status of a response error from the SDK, or 0.
func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// isNotFound reports whether err is the store saying the key (or bucket)
// does not exist.
func isNotFound(err error) bool {
	if httpStatus(err) == http.StatusNotFound {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NotFound", "NoSuchKey":
			return true
		}
	}
	return false
}

// isNoBucket reports whether err is the store saying the bucket does not
// exist.
func isNoBucket(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket"
}

// isUnavailable reports whether err is a transport failure or a failure on
// the store's side, one that a later retry may not meet.
func isUnavailable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return true
	}
	if st := httpStatus(err); st >= 500 || st == http.StatusTooManyRequests || st == http.StatusRequestTimeout {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// wrap classifies an error from an operation on the store: not found,
// unavailable (retryable), or other; what names the operation and its key.
func wrap(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case isNoBucket(err):
		return fmt.Errorf("%w: %s: %w", ErrNoBucket, what, err)
	case isNotFound(err):
		return fmt.Errorf("%w: %s: %w", ErrNotFound, what, err)
	case isUnavailable(err):
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, what, err)
	default:
		return fmt.Errorf("blobs: %s: %w", what, err)
	}
}
