# toold: build, run, test.
#
# Every tool the targets need is installed here when absent: Go tools into
# ./bin from the Go module proxy, ripgrep, redis-server and jq from Debian's
# packages, the reference MCP filesystem server into ./.deps from npm,
# Debian's chromium and npm's playwright-core for the console's browser test.
# Nothing else is assumed beyond Go, Node.js, bash and make.

SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)

BUF_VERSION := v1.75.0
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
GRPCURL_VERSION := v1.9.4
MCP_FS_VERSION := 2026.8.31
MCP_FS_SERVER := $(CURDIR)/.deps/node_modules/.bin/mcp-server-filesystem
# buf/validate/validate.proto, imported by the protos' validation rules:
# printed from the protovalidate Go module, never committed (buf.yaml).
VALIDATE_PROTO := $(CURDIR)/.deps/protovalidate/buf/validate/validate.proto

VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LISTEN ?= 127.0.0.1:50051
RUN_ARGS ?=

.PHONY: all build run test fuzz proto proto-check lint tools deps bench clean conformance conformance-record kube-check

all: build

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/toold ./cmd/toold
	$(GO) build -o $(BIN)/toold-sandbox ./cmd/toold-sandbox

## run: start toold on the in-memory store (no other process needed)
run: build $(BIN)/grpcurl
	$(BIN)/toold --listen $(LISTEN) $(RUN_ARGS)

# The end-to-end and conformance tests drive a built toold (built without
# -race) from a test process that only sends requests; under -race that
# process needs many GB to build the memory test's worst-case requests.
BLACKBOX_PKGS := ./test/e2e ./test/conformance

## test: everything CI checks: generated code current, lint, vet, all tests (-race but for the black-box ones), a short fuzz run
test: deps proto-check lint clients-test
	TOOLD_MCP_FS_SERVER=$(MCP_FS_SERVER) $(GO) test -race -count=1 $$($(GO) list ./... | grep -v -e /test/e2e$$ -e /test/conformance$$)
	TOOLD_MCP_FS_SERVER=$(MCP_FS_SERVER) $(GO) test -count=1 -timeout 20m $(BLACKBOX_PKGS)
	$(MAKE) fuzz FUZZTIME=$(FUZZTIME)

FUZZTIME ?= 5s
# An input that widens coverage is minimized before fuzzing goes on; with
# the default 60s a short run spends its whole time minimizing one input
# and fails at its deadline ("context deadline exceeded").
FUZZMINIMIZETIME ?= 1s
FUZZ_TARGETS := ./internal/shell:FuzzAnalyze ./internal/policy:FuzzParseRule ./internal/policy:FuzzBashMatch ./internal/policy:FuzzParseSettings

## fuzz: each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a longer run)
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg || exit 1; \
	done

## proto: regenerate the Go code beside the .proto files
proto: tools $(VALIDATE_PROTO)
	buf generate

## proto-check: fail when the committed generated code is stale
proto-check: tools $(VALIDATE_PROTO)
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	buf generate --output $$tmp && \
	for f in $$(cd $$tmp && find . -name '*.pb.go'); do \
		cmp -s $$tmp/$$f $$f || { echo "stale generated code: $$f (run 'make proto' and commit)"; exit 1; }; \
	done && \
	for f in $$(find proto -name '*.pb.go'); do \
		[ -f $$tmp/$$f ] || { echo "generated file without a .proto: $$f"; exit 1; }; \
	done && echo "generated code is current"

## lint: buf lint, buf breaking against main, gofmt, go vet
lint: tools $(VALIDATE_PROTO)
	buf lint proto
	@# main's protos import validate.proto too, which git does not hold:
	@# check against main's proto directory beside the same .deps module.
	@if git rev-parse --verify -q main >/dev/null && git cat-file -e main:buf.yaml 2>/dev/null; then \
		tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
		git archive main proto | tar -x -C $$tmp && \
		cp -r .deps/protovalidate $$tmp/protovalidate && \
		printf 'version: v2\nmodules:\n  - path: proto\n  - path: protovalidate\n' > $$tmp/buf.yaml && \
		buf breaking proto --against $$tmp/proto; fi
	@out=$$(gofmt -l $$(git ls-files '*.go')); [ -z "$$out" ] || { echo "gofmt needed: $$out"; exit 1; }
	$(GO) vet ./...

BENCH_PNG ?= bench/latency.png
BENCH_SCALE ?= 1

## bench: every performance ratio in one interleaved run against bin/toold (table + $(BENCH_PNG)), then the go test benchmarks
bench: deps build
	$(GO) run ./test/bench --toold $(BIN)/toold --png $(BENCH_PNG) --scale $(BENCH_SCALE)
	$(GO) test -run '^$$' -bench . -benchmem ./...

## tools: Go tools into ./bin when absent
tools: $(BIN)/buf $(BIN)/protoc-gen-go $(BIN)/protoc-gen-go-grpc $(BIN)/grpcurl

$(BIN)/buf:
	GOBIN=$(BIN) $(GO) install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
$(BIN)/protoc-gen-go:
	GOBIN=$(BIN) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
$(BIN)/protoc-gen-go-grpc:
	GOBIN=$(BIN) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
$(BIN)/grpcurl:
	GOBIN=$(BIN) $(GO) install github.com/fullstorydev/grpcurl/cmd/grpcurl@$(GRPCURL_VERSION)

CONSOLE_TEST := $(CURDIR)/test/console

## deps: Go tools plus the system and npm packages the tests use
deps: tools $(MCP_FS_SERVER)
	@missing=""; \
	command -v rg >/dev/null || missing="$$missing ripgrep"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq $$missing; fi; \
	fi
	@# playwright-core drives chromium in the console's browser test (test/e2e/console_test.go).
	@[ $(CONSOLE_TEST)/node_modules/.package-lock.json -nt $(CONSOLE_TEST)/package-lock.json ] || \
		npm ci --silent --no-audit --no-fund --prefix $(CONSOLE_TEST)

# kube-apiserver for kube-check, built from the Go module proxy through the
# wrapper module deploy/kubecheck (rebuilt when its pin changes).
KUBE_APISERVER := $(CURDIR)/.deps/bin/kube-apiserver
$(KUBE_APISERVER): deploy/kubecheck/go.mod deploy/kubecheck/go.sum
	cd deploy/kubecheck && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

## kube-check: every overlay and component, as a strict server-side dry run against kube-apiserver and etcd on loopback, in a restricted namespace
kube-check: $(KUBE_APISERVER)
	@command -v etcd >/dev/null || { echo "installing: etcd-server"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq etcd-server; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq etcd-server; fi; }
	TOOLD_KUBE_APISERVER=$(KUBE_APISERVER) TOOLD_ETCD=$$(command -v etcd) \
		$(GO) test -count=1 -v -run '^TestManifestsOnAPIServer$$' ./deploy/

# Rebuilt when the module's version in go.mod changes.
$(VALIDATE_PROTO): go.mod
	$(GO) run ./proto/internal/validateproto $(CURDIR)/.deps/protovalidate
	@touch $@

$(MCP_FS_SERVER):
	npm install --silent --no-audit --no-fund --prefix $(CURDIR)/.deps @modelcontextprotocol/server-filesystem@$(MCP_FS_VERSION)

## conformance: compare toold with the recorded Claude Code fixtures (part of make test too)
conformance:
	$(GO) test -count=1 ./test/conformance

# The Claude Code release the fixtures come from: the one constant in
# internal/claudecode. The oracle (shared/oracle/oracle.py beside the
# checkout, or ORACLE=...) installs it with npm into .oracle/ on demand.
CLAUDE_CODE_VERSION := $(shell sed -n 's/^const Version = "\(.*\)"$$/\1/p' internal/claudecode/version.go)
ORACLE ?= $(firstword $(wildcard $(CURDIR)/../shared/oracle/oracle.py $(CURDIR)/../../shared/oracle/oracle.py))
ORACLE_PREFIX := $(CURDIR)/.oracle/cli-$(CLAUDE_CODE_VERSION)
# Outside the checkout: a workspace inside a git repository would change
# what git, and Grep with .gitignore, answer.
CONFORMANCE_OUT ?= /tmp/toold-conformance
CONFORMANCE_JOBS ?= 2
CONFORMANCE_DENY := Denied by the oracle host.
# The case files to record (make conformance-record CONFORMANCE_CASES=cases_read.json).
CONFORMANCE_CASES ?= cases*.json host_cases*.json

## conformance-record: re-record the fixtures with the pinned Claude Code (needs npm; opt-in)
conformance-record:
	@[ -n "$(ORACLE)" ] || { echo "oracle.py not found: make conformance-record ORACLE=path/to/oracle.py"; exit 1; }
	@[ -n "$(CLAUDE_CODE_VERSION)" ] || { echo "no Version in internal/claudecode/version.go"; exit 1; }
	@$(ORACLE_PREFIX)/node_modules/.bin/claude --version 2>/dev/null | grep -q '^$(CLAUDE_CODE_VERSION) ' || \
		python3 $(ORACLE) setup --version $(CLAUDE_CODE_VERSION) --prefix $(ORACLE_PREFIX)
	@set -e; cd test/conformance; for c in $(CONFORMANCE_CASES); do \
		rest=$${c#*cases}; rest=$${rest%.json}; \
		case $$c in host_*) fx=expected_host$$rest.json; host=(--host-prompts deny --deny-message "$(CONFORMANCE_DENY)");; \
			*) fx=expected$$rest.json; host=();; esac; \
		name=cc$${fx#expected}; name=$${name%.json}; \
		echo "record $$c -> $$fx"; \
		python3 $(ORACLE) cc --cases $$c --out $(CONFORMANCE_OUT) --name $$name \
			--claude $(ORACLE_PREFIX)/node_modules/.bin/claude --jobs $(CONFORMANCE_JOBS) "$${host[@]}"; \
		python3 record.py --oracle $(ORACLE) --version $(CLAUDE_CODE_VERSION) \
			--cases $$c --results $(CONFORMANCE_OUT)/$$name.json --fixture $$fx; \
		done
	$(GO) test -count=1 ./test/conformance -update-known
	@git diff --stat -- test/conformance

# --- Python and TypeScript clients, and the example agent loops ---------------
# Python uses Debian's grpcio/protobuf, which install for /usr/bin/python3
# (not a pyenv or venv python); protoc 3.21 and its gRPC plugin generate the
# committed code. TypeScript installs from the committed package-lock.json.
PYTHON ?= /usr/bin/python3
CLIENTS_APT := python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc openssl
TS_CLIENT := $(CURDIR)/clients/typescript
TS_EXAMPLE := $(CURDIR)/examples/typescript

.PHONY: clients-deps clients-proto clients-proto-check clients-test test-python test-typescript test-examples

## clients-test: the Python and TypeScript clients' tests and the examples
clients-test: clients-proto-check test-python test-typescript test-examples

## clients-deps: Debian's Python gRPC and protoc, npm ci for the TypeScript client and example
clients-deps:
	@missing=""; \
	$(PYTHON) -c 'import grpc, google.protobuf' 2>/dev/null || missing="python3-grpcio python3-protobuf"; \
	command -v protoc >/dev/null || missing="$$missing protobuf-compiler"; \
	command -v grpc_python_plugin >/dev/null || missing="$$missing protobuf-compiler-grpc"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	if [ -n "$$missing" ]; then \
		echo "installing: $(CLIENTS_APT)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(CLIENTS_APT); \
		else sudo apt-get update -qq && sudo apt-get install -y -qq $(CLIENTS_APT); fi; \
	fi
	@for d in $(TS_CLIENT) $(TS_EXAMPLE); do \
		[ $$d/node_modules/.package-lock.json -nt $$d/package-lock.json ] || \
		npm ci --silent --no-audit --no-fund --prefix $$d || exit 1; \
	done

## clients-proto: regenerate the Python and TypeScript clients' code
clients-proto: clients-deps tools $(VALIDATE_PROTO)
	clients/python/gen.sh
	buf generate --template clients/typescript/buf.gen.yaml

## clients-proto-check: fail when the clients' committed generated code is stale
clients-proto-check: clients-deps tools $(VALIDATE_PROTO)
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	clients/python/gen.sh $$tmp/py && \
	{ diff -r -x __pycache__ $$tmp/py/toold_client/_gen clients/python/toold_client/_gen >/dev/null || \
	  { echo "stale generated code in clients/python (protoc $$(protoc --version); run 'make clients-proto' and commit)"; exit 1; }; } && \
	rm -rf $$tmp/ts && buf generate --template clients/typescript/buf.gen.yaml --output $$tmp/ts && \
	{ diff -r $$tmp/ts/clients/typescript/gen clients/typescript/gen >/dev/null || \
	  { echo "stale generated code in clients/typescript (run 'make clients-proto' and commit)"; exit 1; }; } && \
	echo "clients' generated code is current"

## test-python: the Python client's tests against a built toold
test-python: clients-deps
	cd clients/python && $(PYTHON) -m unittest discover -s tests -t . -v

## test-typescript: the TypeScript client's tests (tsc, then node --test)
test-typescript: clients-deps
	cd $(TS_CLIENT) && npx tsc -p tsconfig.json && node --test dist/test/*.test.js

## test-examples: each example agent loop against toold and the fake Messages API
test-examples: clients-deps
	cd $(TS_CLIENT) && npx tsc -p tsconfig.json
	cd $(TS_EXAMPLE) && npx tsc -p tsconfig.json
	$(PYTHON) -m unittest -v examples/test_examples.py
# --- end of the clients' block ------------------------------------------------

clean:
	rm -rf $(BIN) $(CURDIR)/.deps
