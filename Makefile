# ibscan: one non-recursive Makefile.
#   make            build ./ibscan
#   make check      every test tier (unit, CLI/golden on captures, simulator, browser, fuzz, real RDMA)
#   make demo       walk the bundled simulated fabric, write topology.json/.svg and report.html
#   make deps       install the Debian packages needed (as root)
#   make SANITIZE=1 ...  build (and test) with AddressSanitizer + UBSan
#   make WERROR=1 ...    warnings are errors (CI)

VERSION := 0.1.0
CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=

.DEFAULT_GOAL := all

PKGS := libibumad libibmad libibnetdisc jansson libmicrohttpd libxcrypt zlib
# libibverbs and libgvc are loaded at run time (core/probe/verbs_ibv.c,
# output/svg.c), never linked: ibscan starts on a host without them, only
# `ibscan ping` and SVG drawings need them, and no other run pays for their
# libraries in memory. Their headers are needed to build.
HDR_PKGS := libibverbs libgvc libcgraph
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings
# CI sets CI=true: warnings are errors there.
ifeq ($(CI),true)
WERROR := 1
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif
BASE_CFLAGS := -std=gnu11 $(WARN) -DIBSCAN_VERSION='"$(VERSION)"' -MMD -MP -Ibuild/gen \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) $(HDR_PKGS) 2>/dev/null)
LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -libumad -libmad -libnetdisc -ljansson -lmicrohttpd -lcrypt -lz) -lm -lpthread

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
REL := build/rel
SANB := build/san

# Every .c in a layer's folder and its subfolders (core/base, core/mad, ...).
srcs_in = $(sort $(wildcard $(1)/*.c $(1)/*/*.c))
LIB_SRCS := $(call srcs_in,core) $(call srcs_in,fabric) $(call srcs_in,host) $(call srcs_in,output)
CMD_SRCS := $(call srcs_in,cmd)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
# The unit tests' library (tests/unit/lib): the test doubles and the fabric
# builders, compiled once per build and linked into every unit binary.
UNIT_LIB_SRCS := $(sort $(wildcard tests/unit/lib/*.c))
UNIT_LIB_HDRS := $(sort $(wildcard tests/unit/lib/*.h))
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# Two builds from one set of rules: release (build/rel) and sanitized (build/san).
# The unit and CLI tiers always run the sanitized one; `make SANITIZE=1`
# makes ./ibscan the sanitized build too.
define BUILD_template
$(1)_CFLAGS = $$(BASE_CFLAGS) $(2) $$(CFLAGS)
$(1)_LDFLAGS = $(2) $$(LDFLAGS)
$(1)_LIB_OBJS := $$(LIB_SRCS:%.c=$$($(1))/%.o)
$(1)_CMD_OBJS := $$(CMD_SRCS:%.c=$$($(1))/%.o)
$(1)_UNIT_BINS := $$(UNIT_SRCS:tests/unit/%.c=$$($(1))/tests/%)
$(1)_UNIT_LIB_OBJS := $$(UNIT_LIB_SRCS:%.c=$$($(1))/%.o)

$$($(1))/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$($(1)_CFLAGS) -c -o $$@ $$<

$$($(1))/libibscan.a: $$($(1)_LIB_OBJS)
	rm -f $$@
	ar rcs $$@ $$^

$$($(1))/ibscan: $$($(1)_CMD_OBJS) $$($(1))/libibscan.a
	$$(CC) $$($(1)_LDFLAGS) -o $$@ $$($(1)_CMD_OBJS) $$($(1))/libibscan.a $$(LIBS)

$$($(1))/libunit.a: $$($(1)_UNIT_LIB_OBJS)
	rm -f $$@
	ar rcs $$@ $$^

$$($(1))/tests/%: tests/unit/%.c $$($(1))/libunit.a $$($(1))/libibscan.a $$(UNIT_LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$($(1)_CFLAGS) $$($(1)_LDFLAGS) -o $$@ $$< $$($(1))/libunit.a $$($(1))/libibscan.a $$(LIBS) $$(CMOCKA_LIBS)

-include $$($(1)_LIB_OBJS:.o=.d) $$($(1)_CMD_OBJS:.o=.d) $$($(1)_UNIT_LIB_OBJS:.o=.d)
endef
$(eval $(call BUILD_template,REL,))
$(eval $(call BUILD_template,SANB,$(SAN_FLAGS)))

# The report's script and style (output/report/) become C strings, with the
# SHA-256 that the page's Content-Security-Policy names them by; the script is
# report.js with the parts it includes (every other .js there) in place.
GEN := build/gen
REPORT_ASSETS := $(sort $(wildcard output/report/*.js)) output/report/report.css
$(GEN)/report_assets.h: tools/build/embed.py $(REPORT_ASSETS)
	@mkdir -p $(dir $@)
	python3 tools/build/embed.py $@ report_js=output/report/report.js report_css=output/report/report.css
$(REL)/output/report.o $(SANB)/output/report.o: $(GEN)/report_assets.h

# The fuzz targets (tests/fuzz/fuzz_*.c, run by tools/fuzz/fuzz.sh): clang with
# libFuzzer, ASan and UBSan, from the same sources and flags as the other
# builds (clang's warnings too); the library is compiled once for all.
FUZZB := build/fuzz
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZB)/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZB)/%.o)
$(FUZZB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FUZZB)/libibscan.a: $(FUZZ_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^
# The unit tests' library too (fuzz_oob runs the listener over the fake verbs).
FUZZ_UNIT_LIB_OBJS := $(UNIT_LIB_SRCS:%.c=$(FUZZB)/%.o)
$(FUZZB)/libunit.a: $(FUZZ_UNIT_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^
$(FUZZB)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZB)/libunit.a $(FUZZB)/libibscan.a
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZB)/libunit.a $(FUZZB)/libibscan.a $(LIBS)
$(FUZZB)/output/report.o: $(GEN)/report_assets.h
fuzz-targets: $(FUZZ_BINS)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_UNIT_LIB_OBJS:.o=.d)

ifeq ($(SANITIZE),1)
MAIN := $(SANB)
else
MAIN := $(REL)
endif

.PHONY: all check test builds run-browser fuzz-targets need-unit need-cli need-sim need-browser need-fuzz need-rdma check-unit check-cli check-sim check-browser check-fuzz check-rdma deps demo clean install uninstall fixtures golden bench format format-check

all: ibscan

ibscan: $(MAIN)/ibscan
	cp $< $@

# ---- tests ----
# The README's two commands first install what is missing (make deps), then
# build: the -dev packages must be there before anything compiles.
check:
	@tools/deps/deps.sh
	@$(MAKE) --no-print-directory test

# The tiers alone, installing nothing: for packagers (dh_auto_test runs
# `make test`) and anyone whose machine already has every tool. A missing
# one fails its tier at once, named with its package (tools/deps/need.sh).
# Every build first (the sanitized and release ones, and clang's fuzz build,
# whose warnings differ from gcc's), so that a compile error in any of them
# fails in the first minutes, not after the tiers before it have run.
test:
	@$(MAKE) --no-print-directory -j2 builds
	@for t in unit cli sim browser fuzz rdma; do s=$$(date +%s); \
		$(MAKE) --no-print-directory $$( [ $$t = browser ] && echo run-browser || echo check-$$t ) || exit 1; \
		echo "make test: the $$t tier took $$(( $$(date +%s) - s )) s"; done
builds: $(SANB_UNIT_BINS) $(SANB)/ibscan $(REL)/ibscan
	@if command -v $(FUZZ_CC) >/dev/null; then $(MAKE) --no-print-directory fuzz-targets >/dev/null; fi

# Each tier checks every tool it needs first, all at once (tools/deps/need.sh, from
# tools/deps/deps.list), before building anything.
NEEDS := need-unit need-cli need-sim need-browser need-fuzz need-rdma
$(NEEDS): need-%:
	@NEED_WHO=$* tools/deps/need.sh $*

check-unit: need-unit $(SANB_UNIT_BINS)
	@tests/run-unit.sh $(SANB_UNIT_BINS)

check-cli: need-cli ibscan $(SANB)/ibscan $(REL)/drawfile
	@IBSCAN=$(CURDIR)/$(SANB)/ibscan tests/cli/run.sh

check-sim: need-sim ibscan
	@tests/sim/run.sh

# The HTML report in Debian's chromium, headless, driven by puppeteer-core,
# which this target installs (npm ci) when it is missing: a test-only tool.
check-browser:
	@tools/deps/deps.sh --driver
	@$(MAKE) --no-print-directory run-browser
run-browser: need-browser ibscan
	@tests/browser/run.sh

# Every fuzz target for FUZZ_SECONDS each, known crashes first, two at a
# time: 20 s in make check (about 2.5 minutes for 13 targets on 2 cores),
# 60 s for make fuzz.
check-fuzz: need-fuzz
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-20} tools/fuzz/fuzz.sh
fuzz:
	@tools/fuzz/fuzz.sh

# Real RDMA: Debian's kernel in two QEMU guests with soft-RoCE (tests/rdma);
# the guests' image is built once under build/rdma. The release build of
# ibscan (never the sanitized one: the guests have no ASan runtime).
check-rdma: need-rdma $(REL)/ibscan
	@IBSCAN=$(CURDIR)/$(REL)/ibscan tests/rdma/run.sh

deps:
	@tools/deps/deps.sh

# Only the Debian packages that build and run ibscan and the simulator (no npm).
demo:
	@tools/deps/deps.sh --demo
	@$(MAKE) --no-print-directory ibscan
	@tools/dev/demo.sh

# Discovery speed and scale against ibnetdiscover on simulated fat trees (minutes).
bench: ibscan $(REL)/rawrate $(REL)/madcount.so $(REL)/fabricmodel.so $(REL)/routebench
	@tools/bench/bench.sh

$(REL)/rawrate: tools/bench/rawrate.c $(REL)/libibscan.a
	$(CC) $(REL_CFLAGS) -o $@ $< $(REL)/libibscan.a $(LIBS)

$(REL)/routebench: tools/bench/routebench.c $(REL)/libibscan.a
	$(CC) $(REL_CFLAGS) -o $@ $< $(REL)/libibscan.a $(LIBS)

# The drawing of a saved topology, for the drawing tests on generated fabrics (tests/cli/t_drawscale.sh).
$(REL)/drawfile: tools/bench/drawfile.c $(REL)/libibscan.a
	$(CC) $(REL_CFLAGS) -o $@ $< $(REL)/libibscan.a $(LIBS) -ldl

$(REL)/madcount.so: tools/bench/madcount.c
	$(CC) -shared -fPIC -O2 -o $@ $< -ldl

# The fabric model layer (tools/bench/fabricmodel.c) and its pure core, which the
# unit test includes.
$(REL)/fabricmodel.so: tools/bench/fabricmodel.c tools/bench/fmodel.c tools/bench/fmodel.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -shared -fPIC -O2 -g $(CFLAGS) -o $@ tools/bench/fabricmodel.c tools/bench/fmodel.c \
		-ldl -lpthread $(shell $(PKG_CONFIG) --libs libibumad libibmad 2>/dev/null || echo -libumad -libmad)
$(REL)/tests/test_fmodel $(SANB)/tests/test_fmodel: tools/bench/fmodel.c tools/bench/fmodel.h

fixtures: ibscan
	@tools/fixtures/record-fixtures.sh

golden: ibscan
	@IBSCAN=$(CURDIR)/ibscan tests/cli/run.sh --regenerate

# The layout (.clang-format) of the lines a change touches, never the whole
# tree: what changed since FORMAT_BASE (where this branch left main), in the
# working tree too (files git tracks; a new one once added). format-check
# prints what clang-format would change there and fails if anything would;
# format changes those lines in place (git clang-format refuses a file with
# unstaged changes: stage or commit them first).
FORMAT_BASE ?= $(shell git merge-base HEAD main 2>/dev/null || echo HEAD)
# (git clang-format 14 exits 0 either way: the check is on what it prints.)
format-check:
	@out=$$(git clang-format --diff --extensions c,h $(FORMAT_BASE) --) || exit 2; \
	case "$$out" in \
	"" | "no modified files to format" | "clang-format did not modify any files") \
		echo "format-check: the lines changed since $(FORMAT_BASE) follow .clang-format";; \
	*) printf '%s\n' "$$out"; echo "format-check: the diff above is what 'make format' would change" >&2; exit 1;; \
	esac
format:
	git clang-format --extensions c,h $(FORMAT_BASE) --

# What `make install` puts under $(DESTDIR)$(PREFIX), and `make uninstall` removes.
MAN1DIR = $(PREFIX)/share/man/man1
COMPDIR = $(PREFIX)/share/bash-completion/completions
DOCDIR = $(PREFIX)/share/doc/ibscan
INSTALL_DOCS = README.md $(wildcard docs/*.md)
# The README's pictures; the installed README links them (and docs/*.md) where they are installed.
INSTALL_IMAGES = $(wildcard docs/img/*.png)
INSTALL_EXAMPLES = $(sort $(shell find examples -type f 2>/dev/null))
INSTALL_EXAMPLE_DIRS = $(sort $(patsubst %/,%,$(dir $(INSTALL_EXAMPLES))))

INSTALL_DIRS = $(PREFIX)/bin $(MAN1DIR) $(COMPDIR) $(DOCDIR)/img $(addprefix $(DOCDIR)/,$(INSTALL_EXAMPLE_DIRS))
# The directories install made (none of them there before), for uninstall to
# remove when empty: paths below DESTDIR, one a line.
DIRS_RECORD = $(DESTDIR)$(DOCDIR)/.installed-dirs

install: ibscan
	@set -e; new=; for d in $(INSTALL_DIRS); do \
		while [ -n "$$d" ] && [ ! -d "$(DESTDIR)$$d" ]; do new="$$new $$d"; d=$${d%/*}; done; \
	done; \
	echo "install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))"; \
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)); \
	for d in $$new; do echo "$$d"; done >>$(DIRS_RECORD)
	install -m 0755 ibscan $(DESTDIR)$(PREFIX)/bin/ibscan
	install -m 0644 docs/ibscan.1 $(DESTDIR)$(MAN1DIR)/ibscan.1
	install -m 0644 completion/ibscan.bash $(DESTDIR)$(COMPDIR)/ibscan
	install -m 0644 $(filter-out README.md,$(INSTALL_DOCS)) $(DESTDIR)$(DOCDIR)/
	sed 's|](docs/|](|g' README.md >$(DESTDIR)$(DOCDIR)/README.md && chmod 0644 $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 $(INSTALL_IMAGES) $(DESTDIR)$(DOCDIR)/img/
	@set -e; for f in $(INSTALL_EXAMPLES); do \
		if [ -x "$$f" ]; then m=0755; else m=0644; fi; \
		echo "install -m $$m $$f $(DESTDIR)$(DOCDIR)/$$f"; \
		install -m $$m "$$f" "$(DESTDIR)$(DOCDIR)/$$f"; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ibscan $(DESTDIR)$(MAN1DIR)/ibscan.1 $(DESTDIR)$(COMPDIR)/ibscan
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(INSTALL_DOCS)) $(INSTALL_EXAMPLES) $(INSTALL_IMAGES:docs/%=%))
	@# ibscan's own directories and those install made, deepest first, when they are empty.
	@made=$$(cat $(DIRS_RECORD) 2>/dev/null || true); rm -f $(DIRS_RECORD); \
	printf '%s\n' $(DOCDIR) $(DOCDIR)/img $(addprefix $(DOCDIR)/,$(INSTALL_EXAMPLE_DIRS)) $$made | sort -ru | \
		while read -r d; do [ ! -d "$(DESTDIR)$$d" ] || rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done

clean:
	rm -rf build ibscan topology.json topology.svg topology.dot report.html

# make print-VAR: a variable's value, for scripts (tools/fuzz/fuzz.sh reads PKGS).
print-%:
	@echo $($*)
