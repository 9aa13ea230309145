package server

import (
	"os"
	"testing"

	"github.com/rlmhq/rlm/blobs/blobstest"
)

// TestMain stops the S3 store that the cluster tests started, if any.
func TestMain(m *testing.M) { os.Exit(blobstest.Main(m)) }
