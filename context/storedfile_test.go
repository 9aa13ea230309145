package rlmctx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value loaded from a stored file is the variable the store's own copy
// of the value makes.
func TestLoadVarStoredFiles(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("abcdefgh", DefaultMmapThreshold/8+1)
	st, err := OpenStore(StoreConfig{Dir: filepath.Join(dir, "store")})
	require.NoError(t, err)
	defer st.Close()
	for _, tc := range []struct {
		name  string
		value any
		typ   VarType
	}{
		{"small text", "hello", Text},
		{"big text", big, Text},
		{"custom text", "x = 1", VarType("custom:code")},
		{"json", mustDecode(t, `{"a": [1, 2.5, "x"], "b": null}`), JSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := strings.ReplaceAll(tc.name, " ", "-")
			_, err := st.Set(key, tc.value, WithStoreType(tc.typ))
			require.NoError(t, err)
			want, _, err := LoadVar(context.Background(), VarSpec{Name: "v", Source: "store:" + key}, LoadOptions{Store: st})
			require.NoError(t, err)

			// The stored form, as the cluster's blobs hold it.
			path := filepath.Join(dir, key)
			tmp, _, size, _, err := writeTemp(dir, "t-*", tc.value)
			require.NoError(t, err)
			require.NoError(t, os.Rename(tmp, path))

			var asked string
			got, _, err := LoadVar(context.Background(), VarSpec{Name: "v", Source: "store:" + key}, LoadOptions{
				StoredFiles: func(_ context.Context, k string) (StoredFile, error) {
					asked = k
					return StoredFile{Path: path, Type: tc.typ, Text: Encoding(tc.value) == "text", Size: size}, nil
				},
			})
			require.NoError(t, err)
			assert.Equal(t, key, asked)
			assert.Equal(t, want.Type, got.Type)
			assert.Equal(t, want.Source, got.Source)
			assert.Equal(t, want.SizeBytes, got.SizeBytes)
			assert.Equal(t, want.GoValue(), got.GoValue())
		})
	}
	_, _, err = LoadVar(context.Background(), VarSpec{Name: "v", Source: "store:gone"}, LoadOptions{
		StoredFiles: func(context.Context, string) (StoredFile, error) { return StoredFile{}, ErrNotFound },
	})
	assert.ErrorIs(t, err, ErrNotFound)
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	l, err := LoadSource(context.Background(), "-", LoadOptions{Stdin: strings.NewReader(s), Format: FormatJSON})
	require.NoError(t, err)
	return l.Value
}
