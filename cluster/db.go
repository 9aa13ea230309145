package cluster

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Config configures a DB.
type Config struct {
	// URL is the PostgreSQL connection string (postgres://... or key=value;
	// empty: libpq's environment variables such as PGHOST). Its password is
	// redacted from every error.
	URL string
	// Schema, when set, is the schema holding rlm's and River's tables (the
	// connections' search_path); Open creates it if needed. Empty: the
	// server's default search_path.
	Schema string
	// LeaseTTL is how long a claimed run's lease lasts without a renewal
	// (default 15s). The heartbeat renews it every LeaseTTL/3.
	LeaseTTL time.Duration
	// ReapEvery is how often the reaper looks for runs whose lease expired
	// (default 5s).
	ReapEvery time.Duration
	// MaxOwners: a run claimed by this many owners that all died is marked
	// failed by the next Claim instead of being run again (default 3).
	MaxOwners int
	// Owner names this process in the runs it owns (default host:pid).
	Owner string
	// Workers is how many runs a Started DB executes at once (River's
	// MaxWorkers for the run queue; default 4).
	Workers int
	// CellWorkers is how many sweep cells a Started DB executes at once
	// (River's MaxWorkers for SweepQueue; 0: this DB works no cells).
	// Its executor is set with SetCellExecutor.
	CellWorkers int
	// RetryDelay is how long a run whose executor returned ErrRetry waits
	// before it is dispatched again (default 5s; River's scheduler may add
	// up to a few seconds).
	RetryDelay time.Duration
	// Logger receives this package's and River's logs (default: none).
	Logger *slog.Logger
	// MaxConns bounds the process's connections to the database, the
	// listener's aside (default 20; a URL's pool_max_conns wins).
	MaxConns int
}

// Defaults.
const (
	DefaultLeaseTTL   = 15 * time.Second
	DefaultReapEvery  = 5 * time.Second
	DefaultMaxOwners  = 3
	DefaultWorkers    = 4
	DefaultMaxConns   = 20
	DefaultRetryDelay = 5 * time.Second
)

// Names in the database.
const (
	// QueueName is the River queue of run jobs.
	QueueName = "rlm_runs"
	// JobKind is the River job kind of run jobs.
	JobKind = "rlm_run"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is a handle on the cluster database: a connection pool, a listener
// connection for notifications and an (unstarted) River client. It is safe
// for concurrent use.
type DB struct {
	cfg   Config
	log   *slog.Logger
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	hub   *hub

	// Notification channels, per schema so that schemas sharing a
	// database do not wake each other.
	eventsChannel, cancelChannel string

	// followTick is the safety-net period at which a follower re-queries
	// without a notification.
	followTick time.Duration

	mu        sync.Mutex
	exec      Executor
	cellExec  CellExecutor
	cellBeats map[*cellBeat]struct{}
	// stopCells ends when Stop cancels the running executions.
	stopCells       context.Context
	stopCellsCancel context.CancelFunc
	started         bool
	reaper          context.CancelFunc
	reapDone        chan struct{}
	closed          bool
	leases          map[*Lease]struct{}
	// dead simulates a process death in tests: workers return without
	// finishing or releasing their runs.
	dead bool
}

// Open connects to the database, migrates it (River's migrations and
// rlm's own, under an advisory lock so that concurrent Opens are safe) and
// starts the listener connection. The returned DB does not execute runs
// until Start.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	cfg = withDefaults(cfg)
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, redactErr(cfg.URL, fmt.Errorf("cluster: parse database url: %w", err))
	}
	if cfg.Schema != "" {
		pcfg.ConnConfig.RuntimeParams["search_path"] = cfg.Schema
	}
	if _, ok := pcfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		pcfg.ConnConfig.RuntimeParams["application_name"] = "rlm"
	}
	// A process that stops between two statements of a transaction (a
	// frozen VM, SIGSTOP, a long pause) holds its locks until the server
	// ends that transaction: its runs' rows and the reaper's lock then
	// block the other replicas, which could not take its runs over when
	// its lease expired. The server ends such a transaction after two
	// lease TTLs (every transaction here is short); the owner's writes
	// were fenced by then anyway. A URL's setting wins.
	if _, ok := pcfg.ConnConfig.RuntimeParams[idleTxTimeoutParam]; !ok {
		pcfg.ConnConfig.RuntimeParams[idleTxTimeoutParam] = strconv.FormatInt(idleTxTimeout(cfg.LeaseTTL).Milliseconds(), 10)
	}
	// River's workers, the heartbeats, the runs' journal writes and the
	// API share the pool; each use is a short transaction (runs wait on
	// their model, not on the database), so a few connections serve many
	// runs, and several replicas stay within the server's connection
	// limit (PostgreSQL's default max_connections is 100). A URL's
	// pool_max_conns wins.
	if !strings.Contains(cfg.URL, "pool_max_conns") {
		pcfg.MaxConns = int32(cfg.MaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, redactErr(cfg.URL, wrapErr("connect", err))
	}
	db := &DB{
		cfg:        cfg,
		log:        cfg.Logger,
		pool:       pool,
		followTick: time.Second,
		leases:     map[*Lease]struct{}{},
		cellBeats:  map[*cellBeat]struct{}{},
	}
	db.eventsChannel, db.cancelChannel = "rlm_events", "rlm_cancel"
	if cfg.Schema != "" {
		db.eventsChannel, db.cancelChannel = cfg.Schema+".rlm_events", cfg.Schema+".rlm_cancel"
	}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, redactErr(cfg.URL, err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &runWorker{db: db})
	river.AddWorker(workers, &cellWorker{db: db})
	queues := map[string]river.QueueConfig{QueueName: {MaxWorkers: cfg.Workers}}
	if cfg.CellWorkers > 0 {
		queues[SweepQueue] = river.QueueConfig{MaxWorkers: cfg.CellWorkers}
	}
	db.river, err = river.NewClient(riverpgxv5.New(pool), &river.Config{
		Schema: cfg.Schema,
		Logger: cfg.Logger,
		Queues: queues,
		// A run lasts as long as it lasts: the lease, not a job timeout,
		// bounds an owner that stopped making progress.
		JobTimeout: -1,
		Workers:    workers,
		// A run's job is fetched as soon as its insert is notified: River
		// notifies at most once per FetchCooldown per queue (100 ms by
		// default, so a burst of submits waited for the 1 s poll), and
		// the poll is the fallback.
		FetchCooldown:     10 * time.Millisecond,
		FetchPollInterval: 200 * time.Millisecond,
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("cluster: river client: %w", err)
	}
	db.hub = newHub(db, pcfg.ConnConfig)
	if err := db.hub.start(ctx); err != nil {
		pool.Close()
		return nil, redactErr(cfg.URL, err)
	}
	return db, nil
}

// idleTxTimeoutParam is PostgreSQL's setting that ends a transaction left
// idle (see Open).
const idleTxTimeoutParam = "idle_in_transaction_session_timeout"

// idleTxTimeout is how long a replica's transaction may stay idle before
// the server ends it: two lease TTLs, at least a second.
func idleTxTimeout(ttl time.Duration) time.Duration { return max(2*ttl, time.Second) }

func withDefaults(cfg Config) Config {
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.ReapEvery <= 0 {
		cfg.ReapEvery = DefaultReapEvery
	}
	if cfg.MaxOwners <= 0 {
		cfg.MaxOwners = DefaultMaxOwners
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.Owner == "" {
		h, _ := os.Hostname()
		cfg.Owner = h + ":" + strconv.Itoa(os.Getpid())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// Close stops the worker if it was started (as Stop with a canceled
// context: running executions are canceled and their runs released),
// stops the heartbeats of the leases still held (their runs are left to
// the reaper once the leases expire), and closes the listener and the
// pool.
func (db *DB) Close() {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return
	}
	db.closed = true
	started := db.started
	db.mu.Unlock()
	if started {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = db.Stop(ctx)
	}
	db.mu.Lock()
	for l := range db.leases {
		l.stopHeartbeat()
	}
	db.mu.Unlock()
	db.hub.stop()
	db.pool.Close()
}

// Ping checks that the database answers (for a readiness probe); a failure
// wraps ErrUnavailable.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return &unavailableError{op: "ping", err: err}
	}
	return nil
}

// lockKey is the first key of rlm's two-key advisory locks (the second
// names the lock and the schema).
const lockKey = "rlm"

// migrate runs River's migrations (each version in its own transaction,
// as some of them must be) and then rlm's (in one transaction), holding a
// session advisory lock on a dedicated connection, so that concurrent
// Opens apply each migration once.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrapErr("migrate", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1), hashtext($2))`, lockKey, "migrate:"+db.cfg.Schema); err != nil {
		return wrapErr("migrate: lock", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1), hashtext($2))`, lockKey, "migrate:"+db.cfg.Schema); err != nil {
			// The lock dies with the connection.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if db.cfg.Schema != "" {
		if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{db.cfg.Schema}.Sanitize()); err != nil {
			return wrapErr("migrate: create schema", err)
		}
	}
	m, err := rivermigrate.New(riverpgxv5.New(db.pool), &rivermigrate.Config{Schema: db.cfg.Schema, Logger: db.log})
	if err != nil {
		return fmt.Errorf("cluster: migrate river: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return wrapErr("migrate river", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return wrapErr("migrate", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS rlm_schema_version (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return wrapErr("migrate: version table", err)
	}
	// Each migration is applied once, by version: a migration merged
	// later with a lower version than one already applied (branches
	// numbered theirs apart) is applied then.
	rows, err := tx.Query(ctx, `SELECT version FROM rlm_schema_version`)
	if err != nil {
		return wrapErr("migrate: read version", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return wrapErr("migrate: read version", err)
	}
	applied := map[int]bool{}
	for _, v := range versions {
		applied[int(v)] = true
	}
	migs, err := migrations()
	if err != nil {
		return err
	}
	for _, mg := range migs {
		if applied[mg.version] {
			continue
		}
		if _, err := tx.Exec(ctx, mg.sql); err != nil {
			return wrapErr("migrate "+mg.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO rlm_schema_version (version, name) VALUES ($1, $2)`, mg.version, mg.name); err != nil {
			return wrapErr("migrate "+mg.name, err)
		}
		db.log.Info("cluster: applied migration", "name", mg.name)
	}
	if err := tx.Commit(ctx); err != nil {
		return wrapErr("migrate: commit", err)
	}
	return nil
}

type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d+)_[a-z0-9_]+\.sql$`)

// migrations lists the embedded migrations in version order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("cluster: migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("cluster: migration file %q is not named NNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("cluster: migrations: %w", err)
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(e.Name(), ".sql"), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := range out {
		if out[i].version < 1 || i > 0 && out[i].version == out[i-1].version {
			return nil, fmt.Errorf("cluster: migration %s: versions must be distinct and from 1", out[i].name)
		}
	}
	return out, nil
}

// SchemaVersion is the version of rlm's schema that this package migrates
// to (the highest version of its embedded migrations; versions may skip
// numbers).
func SchemaVersion() int {
	m, _ := migrations()
	if len(m) == 0 {
		return 0
	}
	return m[len(m)-1].version
}

// redactErr returns err with the URL's password replaced by "xxxxx" in its
// message. It keeps err's chain for errors.Is.
func redactErr(rawURL string, err error) error {
	if err == nil {
		return nil
	}
	pw := password(rawURL)
	if pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), pw, "xxxxx"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// password extracts the password of a postgres:// URL or a key=value
// connection string.
func password(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
	}
	if m := regexp.MustCompile(`(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`).FindStringSubmatch(raw); m != nil {
		return strings.Trim(m[1], "'")
	}
	if u, err := url.Parse(raw); err == nil {
		if p := u.Query().Get("password"); p != "" {
			return p
		}
	}
	return ""
}
