# netkit — developer targets. `make test` is what CI runs (.ci/run).

GO        ?= go
PKGS      ?= ./...
# cmd/netbench's tests take 3.5 min on a quiet 2-core machine and passed
# go test's default 10 min limit on one loaded to 15.
TESTTIMEOUT ?= -timeout 30m
COUNT     ?= 10
BENCH     ?= .
BENCHTIME ?= 1s
FUZZTIME  ?= 5s
# How long the fuzzer may minimise each new interesting input (Go's default,
# 60s, stalls a short run at 0 execs/s while it minimises).
FUZZMINIMIZETIME ?= 1s
# staticcheck, run through `go run` at a pinned version (no global install).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all test generate generate-check bench bench-peers bench-echo bench-http bench-h2 bench-smoke compare fuzz lint cover

all: test

## test: vet, tests (plain, -race, -tags invariants), the whole module on
##       the pure-Go twins of internal/rt and search (-tags nounsafe,purego:
##       no unsafe, no go:linkname, no assembly; -short, since netbench's
##       long tests build other modules, which the tags do not reach),
##       peers module, darwin,
##       arm64 and 386 (32-bit) builds, the generated assembly's
##       regeneration check; browser tests need Chromium, MQTT
##       interoperability tests need mosquitto and its clients (skipped,
##       with a warning, without them)
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(TESTTIMEOUT) $(PKGS)
	$(GO) test -count=1 $(TESTTIMEOUT) -race $(PKGS)
	$(GO) test -count=1 $(TESTTIMEOUT) -tags invariants $(PKGS)
	$(GO) vet -tags nounsafe,purego $(PKGS)
	$(GO) test -count=1 $(TESTTIMEOUT) -short -tags nounsafe,purego $(PKGS)
	cd internal/peers && $(GO) vet ./... && $(GO) test -count=1 ./...
	GOOS=darwin $(GO) build $(PKGS)
	GOARCH=arm64 $(GO) vet ./search/... ./internal/rt/...
	GOARCH=arm64 $(GO) build $(PKGS)
	GOARCH=386 $(GO) vet $(PKGS)
	GOARCH=386 $(GO) build $(PKGS)
	cd internal/asmgen && $(GO) vet ./...
	@$(MAKE) --no-print-directory generate-check
	@$(BROWSER_CHECK)
	@$(MOSQUITTO_CHECK)

## generate: rebuild the generated assembly (go generate; the generators
##           live in internal/asmgen, a module of their own)
generate:
	$(GO) generate ./search/... ./internal/rt/pairscan/... ./internal/rt/bytemask/...

# GENERATED holds the packages with generated assembly.
GENERATED = search internal/rt/pairscan internal/rt/bytemask

## generate-check: regenerate and fail if anything differs from what is
##                 committed (or a generated file is new)
generate-check: generate
	@git diff --exit-code --stat -- $(GENERATED) || { echo "generate-check: the generated files differ from the committed ones: run make generate and commit"; exit 1; }
	@new=$$(git ls-files --others --exclude-standard -- $(GENERATED)); if [ -n "$$new" ]; then echo "generate-check: uncommitted generated files: $$new"; exit 1; fi

# BROWSER_CHECK warns when the browser tests were skipped for want of a
# Chromium (CI sets NETKIT_REQUIRE_BROWSER=1, which makes them fail instead).
BROWSER_CHECK = for b in chromium chromium-browser google-chrome google-chrome-stable headless_shell; do \
	  command -v $$b >/dev/null && exit 0; \
	done; [ -n "$$NETKIT_CHROMIUM" ] || \
	echo "make test: WARNING: no Chromium or Chrome found: the BROWSER TESTS WERE SKIPPED (apt-get install chromium, or set NETKIT_CHROMIUM)"

# MOSQUITTO_CHECK warns when the MQTT interoperability tests (codec/mqtt)
# were skipped for want of mosquitto, mosquitto_pub or mosquitto_sub (CI sets
# NETKIT_REQUIRE_MOSQUITTO=1, which makes them fail instead). Debian puts the
# broker in /usr/sbin, outside a user's PATH; the tests look there too.
MOSQUITTO_CHECK = broker=$$NETKIT_MOSQUITTO; \
	[ -n "$$broker" ] || broker=$$(command -v mosquitto) || \
	for d in /usr/sbin /usr/local/sbin; do [ -x $$d/mosquitto ] && broker=$$d/mosquitto && break; done; \
	if [ -z "$$broker" ] || [ ! -x "$$broker" ]; then \
	  echo "make test: WARNING: no mosquitto broker found: the MQTT INTEROPERABILITY TESTS WERE SKIPPED (apt-get install mosquitto mosquitto-clients, or set NETKIT_MOSQUITTO)"; \
	elif ! command -v mosquitto_pub >/dev/null || ! command -v mosquitto_sub >/dev/null; then \
	  echo "make test: WARNING: no mosquitto_pub or mosquitto_sub found: the MQTT CLIENT INTEROPERABILITY TEST WAS SKIPPED (apt-get install mosquitto-clients)"; \
	fi

## bench: the main job — netbench runs every package's benchmarks and writes
##        the Go benchmark format on stdout (COUNT=10 samples for benchstat;
##        BENCH=regexp, BENCHTIME=1s)
bench:
	$(GO) run ./cmd/netbench run -bench '$(BENCH)' -count $(COUNT) -benchtime $(BENCHTIME) $(PKGS)

## compare: netbench compare OLD NEW over PKGS (e.g. make compare OLD=HEAD~1 NEW=.)
OLD ?= HEAD~1
NEW ?= .
compare:
	$(GO) run ./cmd/netbench compare -bench '$(BENCH)' -count $(COUNT) -benchtime $(BENCHTIME) $(OLD) $(NEW) $(PKGS)

## bench-peers: side-by-side benchmarks against peer libraries (nested module)
bench-peers:
	cd internal/peers && $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) -benchtime $(BENCHTIME) ./...

## bench-echo: the echo benchmark (internal/peers/cmd/echobench): netkit,
##             net, gnet, netpoll and nbio echo servers, each a process
##             pinned to CPU 0, driven by one load generator on CPU 1; the
##             markdown table on stdout, every run in echo-results.json
##             (RUNS=5 runs per scenario, DURATION=3s window each)
RUNS     ?= 5
DURATION ?= 3s
bench-echo:
	cd internal/peers && $(GO) run ./cmd/echobench run -runs $(RUNS) -duration $(DURATION) -json $(CURDIR)/echo-results.json

## bench-http: the HTTP/1.1 server benchmark (internal/peers/cmd/httpbench):
##             netkit (eventloop/httpserver, native and Adapt), fasthttp and
##             net/http, each a process pinned to CPU 0 (GOMAXPROCS=1), the
##             load pinned to CPU 1: plaintext and JSON with and without
##             16-deep pipelining, a 1 ms handler at 256 and 10,000
##             connections, 10,000 idle connections (RSS), latency from
##             httpbench's own generator; the markdown table on stdout,
##             every run in http-results.json
##             (RUNS=5 runs each, DURATION=3s each, whole seconds; needs wrk:
##             apt-get install wrk; SMOKE=1: one 1-second run each, for CI)
bench-http:
	cd internal/peers && $(GO) run ./cmd/httpbench run -runs $(RUNS) -duration $(DURATION) $(if $(SMOKE),-smoke) -json $(CURDIR)/http-results.json

## bench-h2:   the HTTP/2 benchmark (httpbench h2): netkit's h2c server
##             (eventloop/httpserver WithH2C) against Go's h2c server
##             (x/net/http2 as net/http bundles it), each a process
##             pinned to CPU 0 (GOMAXPROCS=1), h2load -t1 pinned to CPU 1
##             with 64 connections of 100 streams
##             (plaintext and JSON), and 10,000 idle HTTP/2 connections
##             (RSS); every run in h2-results.json (RUNS, DURATION as
##             above; needs h2load: apt-get install nghttp2-client)
bench-h2:
	cd internal/peers && $(GO) run ./cmd/httpbench h2 -runs $(RUNS) -duration $(DURATION) $(if $(SMOKE),-smoke) -json $(CURDIR)/h2-results.json

## bench-smoke: every benchmark once (-benchtime=1x), both modules, as CI does
bench-smoke:
	$(GO) run ./cmd/netbench run -benchtime 1x $(PKGS)
	cd internal/peers && $(GO) test -run '^$$' -bench . -benchtime 1x ./...

## fuzz: every Fuzz target, the peers module's too, for FUZZTIME each
##       (.ci/fuzz-one re-runs a target, up to five tries, after Go 1.26's bare
##       fuzztime-deadline failure, go.dev/issue/75804)
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    GO=$(GO) .ci/fuzz-one $$pkg $$f $(FUZZTIME) $(FUZZMINIMIZETIME); \
	  done; \
	done
	@set -e; cd internal/peers; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    GO=$(GO) ../../.ci/fuzz-one $$pkg $$f $(FUZZTIME) $(FUZZMINIMIZETIME); \
	  done; \
	done

## lint: gofmt, go vet and staticcheck over both modules
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)
	cd internal/peers && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...

## cover: test coverage per function (coverage.out, coverage.html)
cover:
	$(GO) test -count=1 -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -n 1
	$(GO) tool cover -html=coverage.out -o coverage.html
