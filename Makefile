# kontext — the two commands a new machine needs:
#   make run    build kontext and serve MCP over stdio on this repository
#   make test   everything CI checks (what .ci/run runs)

GO       ?= go
BIN      := bin
NPM_DIR  := internal/interop/testdata/node
CONFORMANCE_DIR := internal/interop/testdata/conformance
# The fuzz run's total time, split evenly across every fuzz target (.ci/fuzz).
FUZZTIME ?= 3m

.PHONY: all build run test generate check-generated vet test-go interop-deps interop conformance-deps conformance fuzz bench snapshots clean

all: build

# -buildvcs=auto stamps the commit into the binary (kontext version shows
# it) even where GOFLAGS turns stamping off, and skips it outside a checkout.
BUILD := $(GO) build -buildvcs=auto -o $(BIN)/kontext ./cmd/kontext

build:
	$(BUILD)

# An MCP client may run `make run` itself, so stdout carries JSON-RPC only:
# the recipe is not echoed, the build talks on stderr, and kontext replaces
# the shell. (From another directory use make -s -C DIR run: -C alone makes
# make print "Entering directory" on stdout.)
run:
	@$(BUILD) >&2
	@exec $(BIN)/kontext mcp --root .

generate:
	$(GO) generate ./...

# Regenerates and fails when anything changed or appeared: catches stale
# and untracked generated files that `go test` (TestGenerated) cannot see.
check-generated: generate
	@status="$$(git status --porcelain -- gen internal docs README.md)"; \
	if [ -n "$$status" ]; then echo "generated files are stale or untracked (run make generate and commit):"; echo "$$status"; exit 1; fi

vet:
	$(GO) vet ./...
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi

test-go:
	$(GO) test -race ./...

# The interop suite's npm packages, installed exactly as the lockfile says.
interop-deps:
	npm ci --prefix $(NPM_DIR) --no-audit --no-fund

# Real third-party clients (TypeScript SDK v1 and v2, the official Go SDK)
# driving a real kontext process; KONTEXT_INTEROP=1 makes a missing npm
# install a failure instead of a skip.
interop: interop-deps
	KONTEXT_INTEROP=1 $(GO) test -count=1 ./internal/interop/...

# The official MCP conformance suite and the Node (>= 22) it runs on, both
# npm packages installed exactly as the lockfile says.
conformance-deps:
	npm ci --prefix $(CONFORMANCE_DIR) --no-audit --no-fund

# The suite's whole server side against kontext-conformance serving
# streamable HTTP: the active suite, server-sse-polling, json-schema-2020-12
# and the 2026-07-28 requirement set, ending with the totals. Scenarios in
# $(CONFORMANCE_DIR)/baseline.yml are expected to fail, and must.
conformance: conformance-deps
	KONTEXT_CONFORMANCE=1 $(GO) test -count=1 -timeout 30m -run '^TestConformance$$' -v ./internal/interop/

# Every fuzz target of the module (found in the source), FUZZTIME in all.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) .ci/fuzz

test: check-generated vet test-go interop conformance fuzz

snapshots:
	$(GO) test ./internal/mcp ./internal/inventory -run 'TestTranscripts|TestToolSnapshots' -update

bench: interop-deps
	$(GO) run ./bench/mcpbench
	$(GO) run ./bench/httpbench
	$(GO) run ./bench/repobench
	$(GO) run ./bench/knowledgebench
	$(GO) run ./bench/hookbench
	$(GO) run ./bench/initbench
	$(GO) run ./bench/appsbench

clean:
	rm -rf $(BIN) $(NPM_DIR)/node_modules $(CONFORMANCE_DIR)/node_modules
