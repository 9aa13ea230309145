package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rlmhq/rlm/runs"
)

// hub owns the DB's listener connection: it LISTENs on the events and
// cancel channels and fans notifications out by run id, to followers
// (events) and to the DB's leases (cancellations). After a reconnection it
// wakes everyone, since notifications may have been lost meanwhile.
type hub struct {
	db   *DB
	conf *pgx.ConnConfig

	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

func newHub(db *DB, conf *pgx.ConnConfig) *hub {
	return &hub{db: db, conf: conf.Copy(), subs: map[string]map[chan struct{}]struct{}{}}
}

// start connects and LISTENs, then keeps the connection in the
// background. It fails if the first connection fails.
func (h *hub) start(ctx context.Context) error {
	conn, err := h.connect(ctx)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan struct{})
	go h.run(runCtx, conn)
	return nil
}

func (h *hub) stop() {
	if h.cancel != nil {
		h.cancel()
		<-h.done
	}
}

func (h *hub) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, h.conf)
	if err != nil {
		return nil, wrapErr("listen", err)
	}
	for _, ch := range []string{h.db.eventsChannel, h.db.cancelChannel} {
		if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{ch}.Sanitize()); err != nil {
			_ = conn.Close(ctx)
			return nil, wrapErr("listen", err)
		}
	}
	return conn, nil
}

func (h *hub) run(ctx context.Context, conn *pgx.Conn) {
	defer close(h.done)
	backoff := 100 * time.Millisecond
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			c, err := h.connect(ctx)
			if err != nil {
				h.db.log.Warn("cluster: listener reconnect failed", "err", err)
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			conn, backoff = c, 100*time.Millisecond
			h.wakeAll()
		}
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			_ = conn.Close(context.Background())
			conn = nil
			if ctx.Err() != nil {
				return
			}
			h.db.log.Warn("cluster: listener connection lost", "err", err)
			continue
		}
		switch n.Channel {
		case h.db.eventsChannel:
			h.wake(n.Payload)
		case h.db.cancelChannel:
			h.db.pokeLeases(n.Payload)
		}
	}
}

// subscribe returns a channel that receives a value (coalesced) after each
// notification about run id, and a function to unsubscribe.
func (h *hub) subscribe(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs[id] == nil {
		h.subs[id] = map[chan struct{}]struct{}{}
	}
	h.subs[id][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[id], ch)
		if len(h.subs[id]) == 0 {
			delete(h.subs, id)
		}
		h.mu.Unlock()
	}
}

func (h *hub) wake(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[id] {
		signal(ch)
	}
}

func (h *hub) wakeAll() {
	h.mu.Lock()
	for _, m := range h.subs {
		for ch := range m {
			signal(ch)
		}
	}
	h.mu.Unlock()
	h.db.pokeLeases("")
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// followBatch is how many events a follower reads per query.
const followBatch = 500

// Follow streams the events of run id with seq > afterSeq: first those
// already stored, then new ones as they are appended, in seq order without
// a gap or a duplicate. It re-queries on every notification of the run
// and every second as a safety net, and retries a failed query with a
// backoff (database errors are logged). The channel closes when ctx ends,
// when the run has finished and all its events were delivered, or when
// the run does not exist.
func (db *DB) Follow(ctx context.Context, id string, afterSeq int64) <-chan Event {
	out := make(chan Event, 64)
	// Subscribe before the first query, so no notification falls between.
	wake, unsubscribe := db.hub.subscribe(id)
	go func() {
		defer close(out)
		defer unsubscribe()
		tick := time.NewTicker(db.followTick)
		defer tick.Stop()
		next := afterSeq
		retry := 100 * time.Millisecond
		for {
			done, err := db.followOnce(ctx, id, &next, out)
			var again <-chan time.Time
			switch {
			case done, ctx.Err() != nil, errors.Is(err, ErrNotFound):
				return
			case err != nil:
				// A failed query (as on a lost connection) is retried
				// soon, not only at the next notification or tick.
				db.log.Warn("cluster: follow", "run", id, "err", err)
				again = time.After(retry)
				retry = min(2*retry, db.followTick)
			default:
				retry = 100 * time.Millisecond
			}
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-tick.C:
			case <-again:
			}
		}
	}()
	return out
}

// followOnce sends the events after *next and reports whether the run is
// finished with every event sent. The status is read before the events:
// a run found finished has all its events committed, so once they are
// sent the follower is done.
func (db *DB) followOnce(ctx context.Context, id string, next *int64, out chan<- Event) (bool, error) {
	var status string
	if err := db.pool.QueryRow(ctx, `SELECT status FROM rlm_runs WHERE id = $1`, id).Scan(&status); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return false, wrapErr("follow "+id, err)
	}
	for {
		evs, err := db.Events(ctx, id, *next, followBatch)
		if err != nil {
			return false, err
		}
		for _, e := range evs {
			if e.Seq != *next+1 {
				// Cannot happen (appends commit in seq order); never skip one.
				return false, fmt.Errorf("cluster: follow %s: seq %d after %d", id, e.Seq, *next)
			}
			select {
			case out <- e:
				*next = e.Seq
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
		if len(evs) < followBatch {
			return finished(runs.Status(status)), nil
		}
	}
}
