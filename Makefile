GO ?= go
PKGS := ./...
# VERSION is what 'rlm version' prints for binaries built with make build.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build test test-cluster test-sdk eval loadtest loadtest-cluster upstream install-check release-check vet staticcheck bench bench-snippets tidy fmt fmtcheck

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/rlm ./cmd/rlm

# The patched interpreter (internal/starlark) is tested once more as 386,
# where ints take the generic (non-pointer-tagged) representation; on a
# machine that cannot run 386 binaries, the build tag starlark_genericint
# selects that representation natively.
test:
	$(GO) test -race -count=1 $(PKGS)
	@if GO=$(GO) scripts/can-exec-386; then \
		echo "GOARCH=386 $(GO) test -count=1 ./internal/starlark/starlark/"; \
		GOARCH=386 $(GO) test -count=1 ./internal/starlark/starlark/; \
	else \
		echo "make test: this machine cannot run 386 binaries: the generic int representation is tested with -tags starlark_genericint"; \
		$(GO) test -count=1 -tags starlark_genericint ./internal/starlark/starlark/; \
	fi

# test-cluster runs the cluster-mode tests with their large cases
# (RLM_CLUSTER_TEST=1) against the PostgreSQL and S3 store of
# scripts/cluster-dev, which it starts and stops again, pass or fail: the
# packages blobs and cluster, the server's cluster mode, and rlm serve
# processes sharing runs (cmd/rlm TestCluster*: shared runs across three
# replicas, takeover after kill -9, fencing after SIGSTOP; a sweep of
# 1,000 cells over three rlm worker processes, one killed midway).
CLUSTER_PKGS := ./blobs/ ./cluster/...

test-cluster:
	@trap 'scripts/cluster-dev down' EXIT; \
	exports=$$(scripts/cluster-dev up) || exit 1; \
	eval "$$exports"; \
	pkgs=$$(for p in $(CLUSTER_PKGS); do $(GO) list $$p 2>/dev/null; done); \
	echo "testing: $$pkgs"; \
	RLM_CLUSTER_TEST=1 $(GO) test -race -count=1 -run . $$pkgs && \
	RLM_CLUSTER_TEST=1 $(GO) test -race -count=1 -run 'TestCluster' ./server/ ./cmd/rlm/

# test-sdk is the SDK conformance suite (sdk/): the official openai npm
# package, pinned in sdk/node/package-lock.json and installed there with
# npm ci, against a real rlm serve process whose upstream is the fake
# OpenAI server of llm/llmtest (node --test sdk/node/), and a TypeScript
# type-check of reading the rlm field (npx tsc --noEmit). Needs Node and npm.
test-sdk:
	@command -v npm >/dev/null 2>&1 || { echo "test-sdk: node and npm are needed"; exit 1; }
	cd sdk/node && npm ci --no-audit --no-fund
	RLM_SDK_TEST=1 $(GO) test -count=1 -v ./sdk/

# upstream runs go.starlark.net's own tests (downloaded at the version the
# copy in internal/starlark is based on) against the patched copy, and fails
# on any difference not listed in internal/starlark/upstream-deviations.txt.
upstream:
	RLM_UPSTREAM=1 $(GO) test -count=1 -run TestUpstream -v ./internal/starlark/

# install-check installs rlm as a user would (go install from a module
# proxy made from this checkout) and builds a throwaway module importing its
# packages (internal/modcheck).
install-check:
	RLM_INSTALL_CHECK=1 $(GO) test -count=1 -run TestInstall -v ./internal/modcheck/

# eval runs the long-horizon evaluations (internal/evals): scripted models
# over 50-200 iterations of the real engine, printing goal continuity,
# prefix changes, citation coverage, quote recall, injection leaks and the
# largest history against its budget; it fails on a threshold miss.
eval:
	RLM_EVAL=1 $(GO) test -count=1 -run TestLongHorizon -v ./internal/evals/

# loadtest measures what rlm serve adds to its upstream (internal/loadtest):
# a fake OpenAI upstream answering after 20 ms, rlm serve with the default
# limits in front of it, 64 clients making 640 runs (one root call and one
# llm_query each) and then 1 client making 200, each also made directly
# against the upstream in the same run; it prints throughput, added
# p50/p99 latency and server CPU per run as ratios to direct. Not part of
# make test. Pass flags with LOADTEST_FLAGS, e.g.
# LOADTEST_FLAGS="-serve-args '--max-runs 16'".
LOADTEST_FLAGS ?=

loadtest: build
	$(GO) run ./internal/loadtest/cmd/rlm-loadtest -rlm bin/rlm $(LOADTEST_FLAGS)

# loadtest-cluster measures the cluster mode on this machine (issue 31's
# scale check): 1 and then 3 rlm serve replicas sharing the PostgreSQL of
# scripts/cluster-dev, 256 clients, a fake upstream answering after 200 ms;
# it prints each count's throughput, added p50/p99 latency, CPU per run and
# the database's commits and written rows per run. Not part of make test.
loadtest-cluster: build
	@trap 'scripts/cluster-dev down' EXIT; \
	exports=$$(scripts/cluster-dev up) || exit 1; \
	eval "$$exports"; \
	$(GO) run ./internal/loadtest/cmd/rlm-loadtest -rlm bin/rlm -cluster-db "$$RLM_CLUSTER_DB" -replicas 1,3 \
		-clients 256 -requests 1024 -single 0 -latency 200ms -serve-args '--max-runs 256 --queue 1024' $(LOADTEST_FLAGS)

# release-check validates .goreleaser.yaml and builds a snapshot of the
# release for this machine's platform (nothing is published; no docker).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
release-check:
	$(GORELEASER) check
	$(GORELEASER) build --snapshot --clean --single-target --output dist/rlm-snapshot
	./dist/rlm-snapshot --version

# The interpreter's int representation keeps small ints in pointer-typed
# Values (internal/starlark/starlark/int_posix64.go), and unpack.go's
# noescape hides a pointer from escape analysis, both as upstream: vet's
# unsafeptr check cannot see that they are sound (plain go vet reports
# those 4 sites), so it is off there only.
vet:
	$(GO) vet $$($(GO) list $(PKGS) | grep -v /internal/starlark/)
	$(GO) vet -unsafeptr=false ./internal/starlark/...

# staticcheck runs honnef.co/go/tools' default checks; .ci/run installs the
# pinned version with go install.
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

staticcheck:
	$(STATICCHECK) $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# bench-snippets compares the model-style snippets with CPython: in the
# test process (BenchmarkSnippets) and as whole processes, rlm exec
# against python3 on the same data files (BenchmarkSnippetsProcess;
# RLM_BIN_BASE=BINARY adds a paired comparison with another rlm build).
bench-snippets:
	$(GO) test ./sandbox/ -run '^$$' -bench 'BenchmarkSnippets$$' -benchtime=1x
	$(GO) test ./sandbox/ -run '^$$' -bench 'BenchmarkSnippetsProcess$$' -benchtime=1x -timeout 60m

fmt:
	gofmt -w $$(git ls-files '*.go')

# fmtcheck fails, listing the files, if any Go file is not gofmt-formatted.
fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then \
		echo "not gofmt-formatted (run 'make fmt'):"; echo "$$out"; exit 1; fi

# tidy fails, printing the diff, if go.mod/go.sum are not tidy; it changes
# nothing. Fix with 'go mod tidy'.
tidy:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit"; exit 1; }
