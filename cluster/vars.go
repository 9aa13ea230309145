package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// StoreVar is a key of the cluster's shared variable store (the store API
// of a cluster replica): its value is a blob, named by its digest.
type StoreVar struct {
	Key   string
	Scope string
	// Type is the value's variable type (text, json, custom:NAME, ...).
	Type string
	// Encoding is how the blob holds the value: "text" (its UTF-8 bytes)
	// or "json".
	Encoding string
	// Digest and Size name the blob.
	Digest string
	Size   int64
	// Version counts the key's writes: 1 for a new key.
	Version int64
	// Created and Updated are the database's times of the key's first and
	// last writes.
	Created, Updated time.Time
}

// AnyVersion makes PutVar write whatever the key's current version.
const AnyVersion int64 = -1

// VarFilter selects keys in ListVars. Empty fields match everything; a
// Scope ending in '*' matches by prefix (e.g. "agent:*").
type VarFilter struct {
	Scope string
	Type  string
}

const storeVarCols = `key, scope, type, encoding, digest, size, version, created_at, updated_at`

func scanStoreVar(row pgx.Row) (StoreVar, error) {
	var v StoreVar
	err := row.Scan(&v.Key, &v.Scope, &v.Type, &v.Encoding, &v.Digest, &v.Size, &v.Version, &v.Created, &v.Updated)
	return v, err
}

// PutVar writes the key v.Key with v's scope ("" keeps the key's scope,
// global for a new key), type, encoding and blob, and returns it as
// stored. expectVersion makes it a compare-and-swap: AnyVersion writes
// whatever the key holds, 0 creates the key only if it does not exist,
// n > 0 writes only if the key's version is n; otherwise nothing is
// written and the error wraps ErrVersionMismatch. The blob is marked used
// (MarkBlob) in the same transaction.
func (db *DB) PutVar(ctx context.Context, v StoreVar, expectVersion int64) (StoreVar, error) {
	if v.Key == "" || v.Digest == "" {
		return StoreVar{}, errors.New("cluster: put var: empty key or digest")
	}
	var out StoreVar
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		args := []any{v.Key, v.Scope, v.Type, v.Encoding, v.Digest, v.Size}
		var q string
		switch {
		case expectVersion > 0:
			q = `UPDATE rlm_store_vars SET scope = coalesce(nullif($2, ''), scope), type = $3, encoding = $4, digest = $5, size = $6,
				version = version + 1, updated_at = clock_timestamp() WHERE key = $1 AND version = $7 RETURNING ` + storeVarCols
			args = append(args, expectVersion)
		default:
			q = `INSERT INTO rlm_store_vars AS s (key, scope, type, encoding, digest, size, version, created_at, updated_at)
				VALUES ($1, coalesce(nullif($2, ''), 'global'), $3, $4, $5, $6, 1, clock_timestamp(), clock_timestamp())
				ON CONFLICT (key) DO `
			if expectVersion == 0 {
				q += `NOTHING`
			} else {
				q += `UPDATE SET scope = coalesce(nullif($2, ''), s.scope), type = $3, encoding = $4, digest = $5, size = $6,
					version = s.version + 1, updated_at = clock_timestamp()`
			}
			q += ` RETURNING ` + storeVarCols
		}
		var err error
		out, err = scanStoreVar(tx.QueryRow(ctx, q, args...))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: store key %q: expected version %d", ErrVersionMismatch, v.Key, expectVersion)
		}
		if err != nil {
			return err
		}
		return markBlob(ctx, tx, v.Digest, v.Size)
	})
	if err != nil {
		return StoreVar{}, wrapErr("put var "+v.Key, err)
	}
	return out, nil
}

// GetVar returns the key (an error wrapping ErrNoVar if there is none).
func (db *DB) GetVar(ctx context.Context, key string) (StoreVar, error) {
	v, err := scanStoreVar(db.pool.QueryRow(ctx, `SELECT `+storeVarCols+` FROM rlm_store_vars WHERE key = $1`, key))
	if errors.Is(err, pgx.ErrNoRows) {
		return StoreVar{}, fmt.Errorf("%w: %q", ErrNoVar, key)
	}
	return v, wrapErr("get var "+key, err)
}

// ListVars returns the keys matching f, sorted by key.
func (db *DB) ListVars(ctx context.Context, f VarFilter) ([]StoreVar, error) {
	scope, prefix := f.Scope, false
	if p, ok := strings.CutSuffix(scope, "*"); ok {
		scope, prefix = p, true
	}
	rows, err := db.pool.Query(ctx, `SELECT `+storeVarCols+` FROM rlm_store_vars
		WHERE ($1 = '' OR type = $1) AND ($2 = '' AND NOT $3 OR (CASE WHEN $3 THEN starts_with(scope, $2) ELSE scope = $2 END))
		ORDER BY key COLLATE "C"`, f.Type, scope, prefix)
	if err != nil {
		return nil, wrapErr("list vars", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (StoreVar, error) { return scanStoreVar(row) })
	return out, wrapErr("list vars", err)
}

// DeleteVar removes the key; with expectDigest != "" only if its blob is
// that one (else an error wrapping ErrVersionMismatch). A missing key is
// an error wrapping ErrNoVar. The blob's grace period before the GC may
// collect it starts again.
func (db *DB) DeleteVar(ctx context.Context, key, expectDigest string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var digest string
		err := tx.QueryRow(ctx, `SELECT digest FROM rlm_store_vars WHERE key = $1 FOR UPDATE`, key).Scan(&digest)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %q", ErrNoVar, key)
		}
		if err != nil {
			return err
		}
		if expectDigest != "" && expectDigest != digest {
			return fmt.Errorf("%w: store key %q holds another value", ErrVersionMismatch, key)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM rlm_store_vars WHERE key = $1`, key); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE rlm_blobs SET last_used = now() WHERE digest = $1`, digest)
		return err
	})
	return wrapErr("delete var "+key, err)
}
