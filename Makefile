GO ?= go
PKGS := ./...

.PHONY: build test vet bench tidy fmt

build:
	$(GO) build -o bin/rlm ./cmd/rlm

test:
	$(GO) test -race -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

# tidy fails if go.mod/go.sum are not tidy.
tidy:
	cp go.mod /tmp/rlm.go.mod.bak; cp go.sum /tmp/rlm.go.sum.bak
	$(GO) mod tidy
	@if ! diff -q go.mod /tmp/rlm.go.mod.bak >/dev/null || ! diff -q go.sum /tmp/rlm.go.sum.bak >/dev/null; then \
		cp /tmp/rlm.go.mod.bak go.mod; cp /tmp/rlm.go.sum.bak go.sum; \
		echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit"; exit 1; fi
