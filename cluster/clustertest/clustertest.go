// Package clustertest gives tests a fresh PostgreSQL database for the
// cluster mode: the server at RLM_CLUSTER_DB (or PostgreSQL on loopback,
// as scripts/cluster-dev and CI run it), a new database per test, dropped
// when the test ends. A test is skipped, saying why, when no server
// answers.
package clustertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server used without RLM_CLUSTER_DB.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ServerURL is the server the tests use: RLM_CLUSTER_DB or DefaultURL.
func ServerURL() string {
	if u := os.Getenv("RLM_CLUSTER_DB"); u != "" {
		return u
	}
	return DefaultURL
}

var serverUp = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		return err
	}
	return c.Close(ctx)
})

// NewDatabase creates a database for the test and returns its URL; the
// database is dropped (its connections closed) at the test's end. It
// skips the test when no PostgreSQL server answers.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if err := serverUp(); err != nil {
		t.Skipf("no PostgreSQL server answers at RLM_CLUSTER_DB or %s (start one with scripts/cluster-dev up): %v", DefaultURL, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rlm_test_" + hex.EncodeToString(b[:])
	exec := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, ServerURL())
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE DATABASE " + pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("clustertest: create database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)"); err != nil {
			t.Logf("clustertest: drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(ServerURL())
	if err != nil {
		t.Fatalf("clustertest: RLM_CLUSTER_DB: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
