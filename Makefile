# orientd — two commands matter:
#   make run    replay the demo trace at real speed, printing each published state
#   make check  build with warnings as errors and run every test
# Both install the Debian packages they need first (apt-get, as root or via sudo).

SWIFT        ?= swift
SWIFT_FLAGS  ?= -Xswiftc -warnings-as-errors
DEBIAN_DEPS  := pkg-config libiio-dev libudev-dev udev umockdev gir1.2-umockdev-1.0 python3-gi util-linux
BIN          := .build/debug
DEMO         ?= traces/demo.trace
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build run check test bench traces clean

all: build

# Install whatever is missing; nothing at all when everything is there.
deps:
	@missing=""; for p in $(DEBIAN_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The demo: orientd replays traces/demo.trace (a minute of handling, looping) on
# a private socket, and `orientctl watch` beside it prints each published state.
# Ctrl-C stops both.
run: build
	@sock=$$(mktemp -u /tmp/orientd-demo.XXXXXX.sock); state=$$(mktemp -d /tmp/orientd-demo-state.XXXXXX); \
	$(BIN)/orientd --mock $(DEMO) --loop --socket $$sock --state-dir $$state & daemon=$$!; \
	trap 'kill $$daemon 2>/dev/null; wait $$daemon 2>/dev/null; rm -rf $$state' EXIT INT TERM; \
	for i in $$(seq 100); do [ -S $$sock ] && break; sleep 0.05; done; \
	echo "orientd is replaying $(DEMO) on $$sock; orientctl watch (Ctrl-C stops both):"; \
	$(BIN)/orientctl --socket $$sock watch

# Unit and integration tests (Swift), then the real daemon against fake IIO
# accelerometers under umockdev (Python's Testbed API needs Debian's python3-gi,
# hence /usr/bin/python3).
check: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build
	umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -v

test: check

# Classifier throughput (release build): a figure, not a pass/fail test.
bench: deps
	mkdir -p .build && cd Benchmarks && BENCH_OUT=$${BENCH_OUT:-$(CURDIR)/.build/bench.json} $(SWIFT) run -c release $(SWIFT_FLAGS) orientd-bench

# Regenerate the synthetic traces from the trajectory generator.
traces: build
	$(BIN)/tracegen --all traces

clean:
	rm -rf .build Benchmarks/.build
