# ibscan: one non-recursive Makefile.
#   make            build ./ibscan
#   make check      every test tier (unit, CLI/golden on captures, simulator)
#   make demo       walk the bundled simulated fabric, write topology.json/.svg
#   make deps       install the Debian packages needed (as root)
#   make SANITIZE=1 ...  build (and test) with AddressSanitizer + UBSan
#   make WERROR=1 ...    warnings are errors (CI)

VERSION := 0.1.0
CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=

PKGS := libibumad libibmad jansson
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings
ifeq ($(WERROR),1)
WARN += -Werror
endif
BASE_CFLAGS := -std=gnu11 $(WARN) -DIBSCAN_VERSION='"$(VERSION)"' -MMD -MP \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -libumad -libmad -ljansson) -lm

ifeq ($(SANITIZE),1)
BUILD ?= build/san
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build/rel
SAN :=
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(SAN) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

LIB_SRCS := $(wildcard core/*.c) $(wildcard fabric/*.c) $(wildcard output/*.c)
CMD_SRCS := $(wildcard cmd/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libibscan.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

.PHONY: all check check-unit check-cli check-sim deps demo clean install uninstall fixtures golden fuzz bench format

all: ibscan

ibscan: $(BUILD)/ibscan
	cp $< $@

$(BUILD)/ibscan: $(CMD_OBJS) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(LIB) $(LIBS)

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB) tests/unit/fake_transport.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LIBS) $(CMOCKA_LIBS)

# ---- tests ----
check: check-unit check-cli check-sim

check-unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

check-cli: ibscan
	@tests/cli/run.sh

check-sim: ibscan
	@tests/sim/run.sh

deps:
	@tools/deps.sh

demo: ibscan
	@tools/demo.sh

fixtures: ibscan
	@tools/record-fixtures.sh

golden: ibscan
	@tests/cli/run.sh --regenerate

format:
	clang-format -i $(LIB_SRCS) $(CMD_SRCS) $(wildcard */*.h) $(UNIT_SRCS)

install: ibscan
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 ibscan $(DESTDIR)$(PREFIX)/bin/ibscan

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ibscan

clean:
	rm -rf build ibscan topology.json topology.svg topology.dot

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d)
