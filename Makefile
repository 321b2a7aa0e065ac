# orientd — two commands matter:
#   make run    replay the demo trace at real speed, a line for each change and
#               for what the hand does
#   make check  build with warnings as errors and run every test
# Both install the Debian packages they need first (apt-get, as root or via
# sudo): `make build`, `make run` and `make install` only what building needs,
# `make check`, `make bench` and the check targets the test tools beside it.

SWIFT        ?= swift
SWIFT_FLAGS  ?= -Xswiftc -warnings-as-errors
# libstdc++-12-dev: the release link takes libstdc++.a (Sources/orientd/link).
BUILD_DEPS   := pkg-config libudev-dev libsystemd-dev libevdev-dev libstdc++-12-dev
TEST_DEPS    := udev umockdev gir1.2-umockdev-1.0 python3-gi util-linux systemd man-db binutils sway \
                dbus-daemon iio-sensor-proxy python3-dbusmock python3-dbus libglib2.0-bin librsvg2-bin
DEBIAN_DEPS  := $(BUILD_DEPS)
BIN          := .build/debug
DEMO         ?= traces/demo.trace
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# `make install`: PREFIX and DESTDIR as usual. With PREFIX=/usr the units and
# the udev rule go under /lib, where Debian 12 keeps them
# (pkg-config --variable=systemdsystemunitdir systemd).
PREFIX       ?= /usr/local
DESTDIR      ?=
INSTALL      ?= install
BINDIR       ?= $(PREFIX)/bin
SBINDIR      ?= $(PREFIX)/sbin
SYSTEM_LIB   := $(if $(filter /usr,$(PREFIX)),/lib,$(PREFIX)/lib)
UNITDIR      ?= $(SYSTEM_LIB)/systemd/system
# User units: /usr/lib/systemd/user on Debian 12 (pkg-config --variable=systemduserunitdir systemd).
USERUNITDIR  ?= $(PREFIX)/lib/systemd/user
UDEVRULESDIR ?= $(SYSTEM_LIB)/udev/rules.d
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
MANDIR       ?= $(PREFIX)/share/man
# The D-Bus side (docs/dbus.md): dbus-daemon reads policies from
# /usr/share/dbus-1/system.d (and /etc/dbus-1/system.d), polkit its actions from
# /usr/share/polkit-1/actions: with PREFIX=/usr/local, point these there.
DBUSPOLICYDIR  ?= $(PREFIX)/share/dbus-1/system.d
DBUSSERVICEDIR ?= $(PREFIX)/share/dbus-1/system-services
POLKITACTIONDIR ?= $(PREFIX)/share/polkit-1/actions
DOCDIR       ?= $(PREFIX)/share/doc/orientd
# The user docs only: contributor docs (architecture, testing, robustness,
# packaging, examples) stay in the repository. Installed flat in $(DOCDIR),
# where their links to one another resolve (Tests/docs/test_installed_docs.py).
USER_DOCS    := behaviour classifier compositors configuration dbus protocol security traces using
DOC_FILES    := README.md $(patsubst %,docs/%.md,$(USER_DOCS)) systemd/orientd.conf.example systemd/orientd-polling.conf
# The plots those docs show (docs/plots, as plots/ beside them).
DOC_PLOTS    := $(wildcard docs/plots/*.svg)
STAGE        := .build/install

.PHONY: all deps build run check check-boot check-kernel check-ssc check-trixie check-trixie-host test bench bench-trixie traces clean install install-files release uninstall fuzz soak check-sanitize deb check-boot-trixie check-arm64 deb-arm64 check-boot-arm64

all: build

# Every target that tests or measures: the test tools too (iio-sensor-proxy
# and sway among them, which building never needs).
check check-boot check-boot-trixie check-kernel check-ssc check-trixie check-trixie-host deb check-arm64 deb-arm64 \
check-boot-arm64 bench bench-trixie fuzz soak check-sanitize: DEBIAN_DEPS += $(TEST_DEPS)

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
# a private socket, and `orientctl watch --json` beside it gives each published
# state to scripts/demo.sh, which prints it on one line with the trace time and
# what the hand is doing (the trace's phases header). Ctrl-C stops both.
run: build
	@sock=$$(mktemp -u /tmp/orientd-demo.XXXXXX.sock); state=$$(mktemp -d /tmp/orientd-demo-state.XXXXXX); \
	$(BIN)/orientd --mock $(DEMO) --loop --socket $$sock --state-dir $$state --log-level warning & daemon=$$!; \
	trap 'kill $$daemon 2>/dev/null; wait $$daemon 2>/dev/null; rm -rf $$state' EXIT INT TERM; \
	for i in $$(seq 100); do [ -S $$sock ] && break; sleep 0.05; done; \
	echo "orientd replays $(DEMO) (a minute of handling, again and again); Ctrl-C stops it."; \
	$(BIN)/orientctl --socket $$sock watch --json | scripts/demo.sh --live $(DEMO)

# Unit and integration tests (Swift); the example app in Examples/, built as
# an outside package would build it, and what an app taking OrientClient gets
# (only OrientClient and OrientProtocol, no unsafe flags, no classifier or
# config parser symbols in orientctl or the example); the real daemon against fake IIO
# accelerometers under umockdev (Python's Testbed API needs Debian's python3-gi,
# hence /usr/bin/python3); under systemd's conventions (socket activation,
# notify, journald); who may do what, with clients of three uids (root, a
# seat user, nobody: setpriv); the D-Bus side with real clients (monitor-sensor,
# gdbus, busctl, python-dbusmock's polkit) on a private system bus; the units,
# install layout and man pages; every shell example in README.md and docs/
# (docs/examples.md); `orientctl follow` against a real headless sway and faked
# compositor tools; and a short
# fuzz pass (CHECK_FUZZ_SECONDS per libFuzzer target, default 10).
check: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	cd Examples && $(SWIFT) build $(SWIFT_FLAGS)
	/usr/bin/python3 scripts/check-client-closure.py $(BIN)/orientctl Examples/.build/debug/orient-example
	# One test at a time: the daemon integration tests block while they wait
	# on a child process, and in parallel on a 2-core machine they took both
	# of Swift's cooperative threads from the client library's async tests,
	# which then missed their timeouts. Serial takes about as long (70 s).
	$(SWIFT) test --skip-build --no-parallel
	umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -v
	umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/dbus -v
	/usr/bin/python3 -m unittest discover -s Tests/activation -v
	/usr/bin/python3 -m unittest discover -s Tests/security -v
	/usr/bin/python3 -m unittest discover -s Tests/systemd -v
	/usr/bin/python3 -m unittest discover -s Tests/follow -v
	/usr/bin/python3 -m unittest discover -s Tests/docs -v
	/usr/bin/python3 -m unittest discover -s Tests/plot -v
	FUZZ_SECONDS=$${CHECK_FUZZ_SECONDS:-10} SWIFT="$(SWIFT)" FuzzTesting/run.sh

test: check

# The check targets need root. What they debootstrap (the roots) and fetch (the
# guest kernel) is cached outside the work tree, in $ORIENTD_CI_CACHE (default
# /var/cache/orientd-ci; scripts/cache.sh), each entry keyed on what made it
# and made anew when that changes: a clean checkout (CI) reuses them.

# orientd under a real systemd (scripts/check-boot/run.sh): a minimal Debian 12
# (debootstrapped once, cached in $ORIENTD_CI_CACHE) with `make install
# DESTDIR=… PREFIX=/usr` in it, booted with systemd-nspawn; a oneshot unit inside
# checks socket activation, notify readiness, D-Bus activation by name through
# monitor-sensor, the lock across a restart, reload (good and bad config) and the
# watchdog over a minute, the seat under real logind (a test user's session on
# seat0: Tests/seat/check-logind-seat.sh), then powers off. About 3 minutes
# (plus ~2 for the first debootstrap); skipped with a message only where nspawn cannot boot.
check-boot: DEBIAN_DEPS += debootstrap systemd-container
check-boot: deps
	rm -rf .build/check-boot/stage
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/.build/check-boot/stage PREFIX=/usr
	scripts/check-boot/run.sh $(CURDIR)/.build/check-boot/stage

# The same boot on Debian 13 with the package (scripts/check-boot/run.sh --deb):
# a minimal trixie (debootstrapped once, cached), `apt-get install
# ./orientd_….deb` from make deb, what its maintainer scripts did (the orientd
# user, the socket enabled, the service not), then booted with systemd-nspawn
# for check-boot's checks under systemd 257. Fails, never skips, where it cannot
# run. TRIXIE_DEB=path/orientd_…_amd64.deb boots that package instead of
# building one (CI builds it with make deb first).
TRIXIE_DEB ?=
check-boot-trixie: DEBIAN_DEPS += debootstrap systemd-container
check-boot-trixie: $(if $(TRIXIE_DEB),deps,deb)
	SUITE=trixie scripts/check-boot/run.sh --deb "$(if $(TRIXIE_DEB),$(TRIXIE_DEB),$$(ls .build/deb/orientd_*_amd64.deb))"

# orientd on Linux's own drivers (scripts/check-kernel/run.sh): Debian 12's
# kernel booted under QEMU (TCG) with a debootstrapped Debian 12 as its
# initramfs root (both cached) and `make install DESTDIR=…
# PREFIX=/usr` in it; a oneshot unit inside creates a HID sensor hub through
# /dev/uhid (Tests/kernel/hid-sensor-hub.c, described in Tests/kernel/README.md),
# the kernel binds hid-sensor-accel-3d to it, udev starts orientd, and the checks
# (Tests/kernel/inside.sh) turn it, read its status, watch it through
# monitor-sensor and count its wakeups. Fails with the reason when it cannot
# run (no QEMU, no kernel package); it never skips.
check-kernel: DEBIAN_DEPS += debootstrap qemu-system-x86 cpio gcc
check-kernel: deps
	rm -rf .build/check-kernel/stage
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/.build/check-kernel/stage PREFIX=/usr
	scripts/check-kernel/run.sh $(CURDIR)/.build/check-kernel/stage

# orientd on a Qualcomm phone's Sensor Core (scripts/check-ssc/run.sh): the
# kernel check-kernel uses, with its qrtr module, booted under QEMU (TCG) with
# a debootstrapped Debian sid as its root (cached: only sid has libssc and
# its mock service, ssc-server) and `make install DESTDIR=… PREFIX=/usr` in
# it; a oneshot unit inside (Tests/ssc/inside.sh, described in
# Tests/ssc/README.md) starts ssc-server from sensor files it writes and
# watches orientd through monitor-sensor and orientctl: turns, light,
# proximity, the compass, the service killed and started again, idle. Fails
# with the reason when it cannot run; it never skips.
check-ssc: DEBIAN_DEPS += debootstrap qemu-system-x86 cpio
check-ssc: deps
	rm -rf .build/check-ssc/stage
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/.build/check-ssc/stage PREFIX=/usr
	scripts/check-ssc/run.sh $(CURDIR)/.build/check-ssc/stage

# The oldest toolchain supported: Debian 13's own Swift (swiftlang 6.0.3, built
# with assertions on) in a trixie root (scripts/trixie/run.sh: debootstrapped
# once, cached, with swiftlang and the build dependencies). In it, with
# warnings as errors: the debug build, the release build as `make install`
# builds it (static Swift runtime, lld and every flag of Package.swift's
# release link), and `swift test`. About 7 minutes, plus ~2 for
# the first root; needs root (debootstrap, chroot).
# TRIXIE_STEPS picks steps (debug, release, tests; default all; build-tests
# builds what tests runs): CI runs only tests, since make deb has built the
# release with the same compiler.
check-trixie: DEBIAN_DEPS += debootstrap
check-trixie: deps
	SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/trixie/run.sh $(TRIXIE_STEPS)

# The same three in the same root with the host's toolchain (the one $(SWIFT)
# on PATH belongs to: swift.org's 6.3.1 here), bind-mounted read-only: the
# newest toolchain on the newest Debian. Its own scratch path.
check-trixie-host: DEBIAN_DEPS += debootstrap
check-trixie-host: deps
	TOOLCHAIN="$$(dirname "$$(dirname "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")")")" SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/trixie/run.sh $(TRIXIE_STEPS)

# orientd's Debian package (debian/, docs/packaging.md), built by
# scripts/trixie/deb.sh with Debian 13's swiftlang in check-trixie's root
# (debhelper, dpkg-dev, lintian and the Build-Depends added when missing):
# dpkg-buildpackage -b (the release build, the package's smoke test), a check
# that the build wrote nothing outside its tree, and trixie's lintian, which
# must report no error and no warning. The .deb goes to .build/deb/.
deb: DEBIAN_DEPS += debootstrap git
deb: deps
	scripts/trixie/deb.sh

# orientd on arm64, the phones' architecture (scripts/trixie/arm64.sh):
# cross-compiled in check-trixie's amd64 root with Debian's swiftlang 6.0.3
# against an arm64 trixie root (debootstrapped through qemu-user, cached) as the
# SDK: the static release build and the tests; then, in the arm64 root under
# qemu-aarch64, the release binaries' smoke test (debian/smoke) and the Swift
# tests. Mounts binfmt_misc and registers qemu-aarch64 when needed. Too slow for
# CI (docs/packaging.md).
check-arm64: DEBIAN_DEPS += debootstrap qemu-user-static
check-arm64: deps
	scripts/trixie/arm64.sh

# The arm64 package (scripts/trixie/deb.sh arm64): the release binaries
# cross-compiled as make check-arm64 does, packaged by dpkg-buildpackage in the
# arm64 root under qemu-user (debian/rules' ORIENTD_PREBUILT_RELEASE), then
# lintian there. The .deb goes to .build/deb/arm64/.
deb-arm64: DEBIAN_DEPS += debootstrap git qemu-user-static
deb-arm64: deps
	scripts/trixie/deb.sh arm64

# check-boot-trixie for the arm64 package (ARCH=arm64
# scripts/check-boot/run.sh): a minimal arm64 trixie (debootstrapped through
# qemu-user, cached), `apt-get install ./orientd_…_arm64.deb`, booted with
# systemd-nspawn, its systemd and orientd under qemu-aarch64, for check-boot's
# checks with every time limit 20 times longer (ORIENTD_TEST_SLOWDOWN). The
# container's PID 1 gets a preloaded shim for what qemu-user 7.2 lacks
# (scripts/check-boot/qemu-pidfd-spawn.c, built with gcc-aarch64-linux-gnu);
# orientd does not. Builds the package first (make deb-arm64, about 13 minutes
# cached); ARM64_DEB=path/orientd_…_arm64.deb boots that one instead (192–221 s
# cached). Run by hand, not in CI (docs/packaging.md: times, and what differs
# under emulation). Fails with the reason, never skips.
ARM64_DEB ?=
check-boot-arm64: DEBIAN_DEPS += debootstrap systemd-container qemu-user-static gcc-aarch64-linux-gnu
check-boot-arm64: $(if $(ARM64_DEB),deps,deb-arm64)
	ARCH=arm64 SUITE=trixie scripts/check-boot/run.sh --deb "$(if $(ARM64_DEB),$(ARM64_DEB),$$(ls .build/deb/arm64/orientd_*_arm64.deb))"

# Benchmarks: figures, not pass/fail tests. Classifier throughput, fan-out,
# idle wakeups, and orientd side by side with iio-sensor-proxy on the same
# umockdev-faked accelerometer (ratios measured in one run). Prints a table and
# writes $(BENCH_OUT) (default .build/bench.json). See scripts/bench/README.md.
# orientd is built as `make install` builds it (static Swift runtime), so the
# memory figure is the installed daemon's.
bench: deps
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS)
	rm -f Benchmarks/.build/release/description.json
	cd Benchmarks && $(SWIFT) build -c release $(SWIFT_FLAGS)
	mkdir -p .build && BENCH_OUT=$${BENCH_OUT:-$(CURDIR)/.build/bench.json} umockdev-wrapper /usr/bin/python3 scripts/bench/bench.py

# `make bench` on Debian 13 (scripts/trixie/bench.sh): orientd built in a trixie
# root (debootstrapped once, cached; its packages checked and installed at every
# run) with trixie's swiftlang 6.0.3, against trixie's libraries (libsystemd
# 257), with iio-sensor-proxy 3.7 as the peer, on the same fake devices.
# BENCH_ARGS go to bench.py (default `--only sensors`; `--only sensors
# --memory-only` for the RSS keys alone); the JSON goes to
# .build/trixie-bench/bench.json. Exits 1 if a key it ran is null. Needs root
# (debootstrap, chroot).
bench-trixie: DEBIAN_DEPS += debootstrap
bench-trixie: deps
	scripts/trixie/bench.sh $(BENCH_ARGS)

# Robustness (docs/robustness.md): libFuzzer targets for every parser, each
# run for FUZZ_SECONDS (default 60); a soak of minutes (SOAK_MINUTES, default
# 5) with hundreds of churning clients, failing if anonymous memory or fds trend upward; the
# test suites under AddressSanitizer and ThreadSanitizer.
fuzz: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-60} SWIFT="$(SWIFT)" FuzzTesting/run.sh

soak: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS)
	/usr/bin/python3 scripts/soak.py

check-sanitize: deps
	SWIFT="$(SWIFT)" scripts/check-sanitize.sh

# Regenerate the synthetic traces from the trajectory generator.
traces: build
	$(BIN)/tracegen --all traces

# Release binaries (static Swift runtime, stripped) and everything around them:
#   $(SBINDIR)/orientd, $(BINDIR)/orientctl, the units in $(UNITDIR), the user
#   unit orientd-follow.service in $(USERUNITDIR), the D-Bus policy,
#   activation file and polkit action of the D-Bus side, the udev
#   rule in $(UDEVRULESDIR), the sysusers file in $(SYSUSERSDIR), the man pages
#   in $(MANDIR) and the docs, the example configuration and the polling
#   drop-in in $(DOCDIR).
# /etc is left alone: /etc/orientd/orientd.conf is yours to create from the
# example. Installed into the running system (no DESTDIR), it also creates the
# orientd user; the next steps are in orientd(8), NOTES.
install: deps
	$(MAKE) --no-print-directory release
	$(MAKE) --no-print-directory install-files

# The release build `make install` installs (static Swift runtime), alone.
release:
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS)

# What `make install` copies, from .build/release, without building and without
# installing Debian packages: debian/rules runs it after its own release build.
# So root never compiles: `make release` as yourself, then
# `sudo make install-files`. The binaries go in stripped (install -s: 15 MB and
# 17 MB of symbols otherwise); debian/rules sets INSTALL_STRIP= and lets
# dh_strip split the debug info into the -dbgsym package.
INSTALL_STRIP ?= -s
BUILD_RELEASE ?= .build/release
install-files:
	@for b in orientd orientctl; do [ -x $(BUILD_RELEASE)/$$b ] || { \
	  echo "make install-files: $(BUILD_RELEASE)/$$b is missing: build it first, as yourself: make release" >&2; exit 1; }; done
	mkdir -p $(STAGE)
	sed -e 's|^ExecStart=/usr/local/sbin/orientd$$|ExecStart=$(SBINDIR)/orientd|' systemd/orientd.service > $(STAGE)/orientd.service
	sed -e 's|/usr/local/bin/orientctl|$(BINDIR)/orientctl|g' systemd/orientd-follow.service > $(STAGE)/orientd-follow.service
	sed -e 's|/usr/local/lib/systemd/system|$(UNITDIR)|g' -e 's|/usr/local/lib/udev/rules.d|$(UDEVRULESDIR)|g' \
	    -e 's|/usr/local/lib/sysusers.d|$(SYSUSERSDIR)|g' -e 's|/usr/local/share/doc/orientd|$(DOCDIR)|g' \
	    man/orientd.8 > $(STAGE)/orientd.8
	sed -e 's|/usr/local/share/doc/orientd|$(DOCDIR)|g' \
	    man/orientctl.1 > $(STAGE)/orientctl.1
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(UDEVRULESDIR) \
	    $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) \
	    $(DESTDIR)$(DBUSPOLICYDIR) $(DESTDIR)$(DBUSSERVICEDIR) $(DESTDIR)$(POLKITACTIONDIR)
	$(INSTALL) -m 0755 $(INSTALL_STRIP) $(BUILD_RELEASE)/orientd $(DESTDIR)$(SBINDIR)/orientd
	$(INSTALL) -m 0755 $(INSTALL_STRIP) $(BUILD_RELEASE)/orientctl $(DESTDIR)$(BINDIR)/orientctl
	$(INSTALL) -m 0644 $(STAGE)/orientd.service systemd/orientd.socket $(DESTDIR)$(UNITDIR)/
	$(INSTALL) -m 0644 $(STAGE)/orientd-follow.service $(DESTDIR)$(USERUNITDIR)/orientd-follow.service
	$(INSTALL) -m 0644 systemd/61-orientd.rules $(DESTDIR)$(UDEVRULESDIR)/61-orientd.rules
	$(INSTALL) -m 0644 systemd/orientd.sysusers $(DESTDIR)$(SYSUSERSDIR)/orientd.conf
	$(INSTALL) -m 0644 systemd/orientd-dbus.conf $(DESTDIR)$(DBUSPOLICYDIR)/orientd.conf
	$(INSTALL) -m 0644 systemd/net.hadess.SensorProxy.service $(DESTDIR)$(DBUSSERVICEDIR)/net.hadess.SensorProxy.service
	$(INSTALL) -m 0644 systemd/net.hadess.SensorProxy.orientd.policy $(DESTDIR)$(POLKITACTIONDIR)/net.hadess.SensorProxy.orientd.policy
	$(INSTALL) -m 0644 $(STAGE)/orientd.8 $(DESTDIR)$(MANDIR)/man8/orientd.8
	$(INSTALL) -m 0644 $(STAGE)/orientctl.1 $(DESTDIR)$(MANDIR)/man1/orientctl.1
	$(INSTALL) -m 0644 $(filter-out README.md,$(DOC_FILES)) $(DESTDIR)$(DOCDIR)/
	sed -e 's|](docs/|](|g' README.md > $(DESTDIR)$(DOCDIR)/README.md
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)/plots
	$(INSTALL) -m 0644 $(DOC_PLOTS) $(DESTDIR)$(DOCDIR)/plots/
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
	  echo "systemd-sysusers $(SYSUSERSDIR)/orientd.conf"; systemd-sysusers $(SYSUSERSDIR)/orientd.conf; \
	fi

# Removes exactly the files `install` put there, and the doc directory once
# empty. The orientd user stays, as a package's would: files it owns may outlive
# it, and a reused uid would inherit them.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/orientd $(DESTDIR)$(BINDIR)/orientctl \
	    $(DESTDIR)$(UNITDIR)/orientd.service $(DESTDIR)$(UNITDIR)/orientd.socket \
	    $(DESTDIR)$(USERUNITDIR)/orientd-follow.service \
	    $(DESTDIR)$(UDEVRULESDIR)/61-orientd.rules $(DESTDIR)$(SYSUSERSDIR)/orientd.conf \
	    $(DESTDIR)$(DBUSPOLICYDIR)/orientd.conf $(DESTDIR)$(DBUSSERVICEDIR)/net.hadess.SensorProxy.service \
	    $(DESTDIR)$(POLKITACTIONDIR)/net.hadess.SensorProxy.orientd.policy \
	    $(DESTDIR)$(MANDIR)/man8/orientd.8 $(DESTDIR)$(MANDIR)/man1/orientctl.1 \
	    $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES))) $(addprefix $(DESTDIR)$(DOCDIR)/plots/,$(notdir $(DOC_PLOTS)))
	if [ -d $(DESTDIR)$(DOCDIR)/plots ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DOCDIR)/plots; fi
	if [ -d $(DESTDIR)$(DOCDIR) ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DOCDIR); fi

clean:
	rm -rf .build Benchmarks/.build Examples/.build
