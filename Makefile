GO ?= go
PKGS := ./...
# VERSION is what 'rlm version' prints for binaries built with make build.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build test eval loadtest vet staticcheck bench tidy fmt fmtcheck

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/rlm ./cmd/rlm

# The patched interpreter (third_party/go.starlark.net) is its own module,
# which ./... does not reach: its tests run too, and once as 386, where
# ints take the generic (non-pointer-tagged) representation.
test:
	$(GO) test -race -count=1 $(PKGS)
	cd third_party/go.starlark.net && $(GO) test -race -count=1 ./... && GOARCH=386 $(GO) test -count=1 ./starlark/

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

vet:
	$(GO) vet $(PKGS)

# staticcheck runs honnef.co/go/tools' default checks; .ci/run installs the
# pinned version with go install.
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

staticcheck:
	$(STATICCHECK) $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

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
