package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/runs"
)

func TestStoreVarsCompareAndSwap(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	text := StoreVar{Key: "doc", Type: "text", Encoding: "text", Digest: "d1", Size: 5}

	v, err := db.PutVar(ctx, text, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(1), v.Version)
	assert.Equal(t, "global", v.Scope, "a new key's default scope")
	assert.False(t, v.Created.IsZero())
	_, err = db.PutVar(ctx, text, 0)
	require.ErrorIs(t, err, ErrVersionMismatch, "create-only of an existing key")

	_, err = db.PutVar(ctx, StoreVar{Key: "doc", Type: "text", Encoding: "text", Digest: "d2", Size: 6}, 2)
	require.ErrorIs(t, err, ErrVersionMismatch, "a stale version")
	v2, err := db.PutVar(ctx, StoreVar{Key: "doc", Scope: "agent:a", Type: "text", Encoding: "text", Digest: "d2", Size: 6}, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(2), v2.Version)
	assert.Equal(t, v.Created, v2.Created, "created_at is the first write's")
	assert.Equal(t, "agent:a", v2.Scope)
	v3, err := db.PutVar(ctx, StoreVar{Key: "doc", Type: "json", Encoding: "json", Digest: "d3", Size: 2}, AnyVersion)
	require.NoError(t, err)
	assert.Equal(t, int64(3), v3.Version)
	assert.Equal(t, "agent:a", v3.Scope, "an empty scope keeps the key's")
	_, err = db.PutVar(ctx, StoreVar{Key: "new", Type: "text", Encoding: "text", Digest: "d1", Size: 5}, 4)
	require.ErrorIs(t, err, ErrVersionMismatch, "a version of a missing key")

	got, err := db.GetVar(ctx, "doc")
	require.NoError(t, err)
	assert.Equal(t, v3, got)
	_, err = db.GetVar(ctx, "missing")
	require.ErrorIs(t, err, ErrNoVar)

	// Concurrent creates: exactly one wins.
	var won atomic.Int32
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := db.PutVar(ctx, StoreVar{Key: "race", Type: "text", Encoding: "text", Digest: fmt.Sprint("r", i), Size: 1}, 0)
			if err == nil {
				won.Add(1)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			require.ErrorIs(t, err, ErrVersionMismatch)
		}
	}
	assert.Equal(t, int32(1), won.Load())

	require.ErrorIs(t, db.DeleteVar(ctx, "doc", "d1"), ErrVersionMismatch)
	require.NoError(t, db.DeleteVar(ctx, "doc", "d3"))
	require.ErrorIs(t, db.DeleteVar(ctx, "doc", ""), ErrNoVar)
}

func TestListVars(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	for _, v := range []StoreVar{
		{Key: "b", Scope: "agent:x", Type: "text"},
		{Key: "a", Scope: "global", Type: "json"},
		{Key: "c", Scope: "agent:y", Type: "json"},
		{Key: "d", Scope: "session:1", Type: "text"},
	} {
		v.Encoding, v.Digest, v.Size = "text", "d"+v.Key, 1
		_, err := db.PutVar(ctx, v, AnyVersion)
		require.NoError(t, err)
	}
	for _, tc := range []struct {
		f    VarFilter
		want []string
	}{
		{VarFilter{}, []string{"a", "b", "c", "d"}},
		{VarFilter{Scope: "agent:*"}, []string{"b", "c"}},
		{VarFilter{Scope: "agent:x"}, []string{"b"}},
		{VarFilter{Scope: "*"}, []string{"a", "b", "c", "d"}},
		{VarFilter{Type: "json"}, []string{"a", "c"}},
		{VarFilter{Scope: "agent:*", Type: "text"}, []string{"b"}},
		{VarFilter{Scope: "nope"}, nil},
	} {
		list, err := db.ListVars(ctx, tc.f)
		require.NoError(t, err)
		var keys []string
		for _, v := range list {
			keys = append(keys, v.Key)
		}
		assert.Equal(t, tc.want, keys, "%+v", tc.f)
	}
}

func TestStoreVarsReferenceBlobs(t *testing.T) {
	db := openNew(t)
	ctx := tctx(t)
	_, err := db.PutVar(ctx, StoreVar{Key: "k", Type: "text", Encoding: "text", Digest: "kept", Size: 1}, AnyVersion)
	require.NoError(t, err)
	require.NoError(t, db.MarkBlob(ctx, "free", 1))
	require.NoError(t, db.Submit(ctx, Run{ID: "r"}, []Var{{Name: "v", Digest: "pinned", Size: 3, Type: "text", Encoding: "text"}}))
	vars, err := db.Vars(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, []Var{{Name: "v", Digest: "pinned", Size: 3, Type: "text", Encoding: "text"}}, vars)
	time.Sleep(20 * time.Millisecond)
	got, err := db.UnreferencedBlobs(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"free"}, got)
	ok, err := db.ForgetBlob(ctx, "kept", 0)
	require.NoError(t, err)
	assert.False(t, ok, "a store key's blob is kept")

	// Rewriting the key leaves its old blob unreferenced.
	_, err = db.PutVar(ctx, StoreVar{Key: "k", Type: "text", Encoding: "text", Digest: "next", Size: 1}, AnyVersion)
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	got, err = db.UnreferencedBlobs(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"free", "kept"}, got)
}

// An executor that returns ErrRetry leaves the run running, released, and
// it is dispatched again.
func TestExecutorRetry(t *testing.T) {
	db := openNew(t, func(c *Config) { c.LeaseTTL = 30 * time.Second; c.RetryDelay = 100 * time.Millisecond })
	ctx := tctx(t)
	var tries atomic.Int32
	rec := newRecorder(func(ctx context.Context, l *Lease) error {
		if tries.Add(1) == 1 {
			return fmt.Errorf("%w: the blob store is down", ErrRetry)
		}
		return finishDone(ctx, l)
	})
	require.NoError(t, db.Start(ctx, rec))
	submit(t, db, "r")
	r := waitStatus(t, db, "r", runs.StatusDone, 20*time.Second)
	assert.Equal(t, int32(2), tries.Load())
	assert.Equal(t, 1, r.Owners, "a retried claim is not a dead owner")
}
