package blobs_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/rlmhq/rlm/blobs"
)

// A value put by one host is fetched by another through its own cache.
func Example() {
	ctx := context.Background()
	s, err := blobs.Open(ctx, blobs.Config{
		URL:      os.Getenv("RLM_BLOBS"), // s3://rlm?endpoint=http://127.0.0.1:7070&region=us-east-1
		CacheDir: "/var/cache/rlm/blobs",
	})
	if err != nil {
		log.Fatal(err)
	}
	ref, err := s.Put(ctx, strings.NewReader("a large variable value"))
	if err != nil {
		log.Fatal(err)
	}
	// ref is what goes in the database; any host can then read the bytes:
	path, err := s.Fetch(ctx, ref)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(path)
}
