package clustertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a PostgreSQL server of the test's own, in a temporary folder
// on a loopback port, that the test can stop and start again (an outage).
type Server struct {
	t    testing.TB
	bin  string // the folder of initdb and pg_ctl
	dir  string // the data folder
	port int
	as   []string // the command prefix running a binary as the server's user
}

// StartServer starts a private PostgreSQL server (Debian's binaries in
// /usr/lib/postgresql/*/bin, run as the postgres user when the test runs
// as root) and stops it at the test's end. It skips the test when there
// are no binaries or no way to run them.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin: apt-get install postgresql)")
	}
	s := &Server{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	base, err := os.MkdirTemp("", "rlm-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	s.dir = filepath.Join(base, "data")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
		s.as = []string{"runuser", "-u", "postgres", "--"}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	s.run("initdb", "-D", s.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "-N") // -A: auth; -N: no sync
	s.Start()
	t.Cleanup(func() { _ = s.ctl("stop", "-m", "immediate") })
	return s
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	full := append(append([]string{}, s.as...), append([]string{filepath.Join(s.bin, name)}, args...)...)
	return exec.Command(full[0], full[1:]...)
}

func (s *Server) run(name string, args ...string) {
	s.t.Helper()
	if out, err := s.command(name, args...).CombinedOutput(); err != nil {
		s.t.Fatalf("clustertest: %s: %v: %s", name, err, out)
	}
}

func (s *Server) ctl(args ...string) error {
	args = append(args, "-D", s.dir, "-w", "-t", "60")
	if out, err := s.command("pg_ctl", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl %v: %w: %s", args, err, out)
	}
	return nil
}

// URL is the server's postgres database.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Start starts the server (again) and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200", s.port)
	if err := s.ctl("start", "-o", opts, "-l", filepath.Join(filepath.Dir(s.dir), "log")); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.URL())
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("clustertest: the server does not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server at once (its clients' connections break).
func (s *Server) Stop() {
	s.t.Helper()
	if err := s.ctl("stop", "-m", "fast"); err != nil {
		s.t.Fatal(err)
	}
}
