# casq -- build, test, install.
#
#   make                         build src/casq-server
#   make SANITIZE=address,undefined   the same with ASan+UBSan (objects kept apart)
#   make test                    every test suite (what CI runs)
#   make install [PREFIX=/usr/local]
#   make clean

PREFIX   ?= /usr/local
CC       ?= cc
OPT      ?= -O2
PKGS     := libevent hiredis libcurl libcjson
DEP_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEP_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

WARN     := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS   := -std=c11 -D_GNU_SOURCE -g $(OPT) $(WARN) $(DEP_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  := $(EXTRA_LDFLAGS)

VARIANT  := release
ifneq ($(SANITIZE),)
  VARIANT := san
  CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=$(SANITIZE)
  OPT     := -O1
endif

BUILD    := build/$(VARIANT)
SRCS     := $(wildcard src/*.c)
OBJS     := $(patsubst src/%.c,$(BUILD)/%.o,$(SRCS))
BIN      := src/casq-server

.PHONY: all clean install deps test FORCE
all: $(BIN)

# The binary is always src/casq-server; the variant it was built from is
# remembered so switching SANITIZE relinks.
$(BIN): $(BUILD)/casq-server
	@cp $< $@.tmp && mv -f $@.tmp $@
	@echo "$(VARIANT)" > build/.bin-variant

$(BUILD)/casq-server: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD):
	@mkdir -p $@

-include $(OBJS:.o=.d)

ifneq ($(shell cat build/.bin-variant 2>/dev/null),$(VARIANT))
$(BIN): FORCE
endif
FORCE:

deps:
	./deps/install.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/casq-server

clean:
	rm -rf build $(BIN)

# ------------------------------------------------------------------------
# Benchmark tools (bench/; see bench/README.md). Not part of `all` or
# `test`: `make bench-tools` builds the drivers the bench scripts use.
# ------------------------------------------------------------------------
BENCH_BUILD := build/bench

.PHONY: bench-tools
bench-tools: $(BENCH_BUILD)/worker_loop

$(BENCH_BUILD)/worker_loop: bench/worker_loop.c
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) $(shell pkg-config --cflags hiredis) -o $@ $< \
		$(shell pkg-config --libs hiredis) -lpthread
