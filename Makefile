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
PKGS     := libevent hiredis libcurl libcjson zlib lua5.1 lua5.1-cjson lua5.1-bitop liblzf libcrypto libssl
DEP_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEP_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

VARIANT  := release
ifneq ($(SANITIZE),)
  VARIANT := san
  OPT     := -O1
endif

WARN     := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS   := -std=c11 -D_GNU_SOURCE -g $(OPT) $(WARN) $(DEP_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  := $(EXTRA_LDFLAGS)
ifneq ($(SANITIZE),)
  CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=$(SANITIZE)
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
bench-tools: $(BENCH_BUILD)/worker_loop $(BENCH_BUILD)/commit_io

$(BENCH_BUILD)/commit_io: bench/commit_io.c
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -o $@ $<

$(BENCH_BUILD)/worker_loop: bench/worker_loop.c
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) $(shell pkg-config --cflags hiredis) -o $@ $< \
		$(shell pkg-config --libs hiredis) -lpthread

# ------------------------------------------------------------------------
# Tests (tests/README.md lists the suites). `make test` runs all of them
# through tests/run_all.sh, which prints each suite's timing and, last,
# `N passed, N failed` summed over the suites; non-zero exit on any failure.
#   make test-unit | test-tcl | test-tcl-redis | test-integration
#   make test-durability | test-s3 | test-diff | fuzz
#   make test-sanitize   unit + tcl + integration on an ASan/UBSan build
#   make valgrind-test   a scripted session under valgrind, leaks fail it
# Ports: the suites started from here use 28000-28999.
# ------------------------------------------------------------------------
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_SUITES := $(patsubst tests/unit/test_%.c,%,$(UNIT_SRCS))
UNIT_OBJS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%.o,$(UNIT_SRCS) tests/unit/testhelp.c)
SERVER_LIB_OBJS := $(filter-out $(BUILD)/server.o,$(OBJS))
UNIT_BIN    := $(BUILD)/tests/unit-tests
TEST_SUITES ?= unit tcl tcl-redis integration durability s3 s3-e2e diff fuzz sanitize
RUN_TESTS   := CASQ_BIN=$(abspath $(BIN)) UNIT_BIN=$(abspath $(UNIT_BIN)) tests/run_all.sh

.PHONY: test-deps test-unit test-tcl test-tcl-redis test-integration test-durability test-s3 \
	test-diff test-sanitize valgrind-test fuzz fuzz-build unit-tests

unit-tests: $(UNIT_BIN)

$(UNIT_BIN): $(BUILD)/tests/main.o $(UNIT_OBJS) $(SERVER_LIB_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

# The suite list is regenerated when test files come or go.
$(BUILD)/tests/unit_suites.h: FORCE | $(BUILD)/tests
	@echo '#define UNIT_SUITES $(foreach s,$(UNIT_SUITES),X($(s)))' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(BUILD)/tests/main.o: tests/unit/main.c $(BUILD)/tests/unit_suites.h | $(BUILD)/tests
	$(CC) $(CFLAGS) -I$(BUILD)/tests -c $< -o $@

$(BUILD)/tests/%.o: tests/unit/%.c | $(BUILD)/tests
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests:
	@mkdir -p $@

-include $(UNIT_OBJS:.o=.d)

# Installs what the suites need besides the build dependencies
# (redis-server, redis-tools, tcl, python3-redis, node/npm + ioredis, clang).
test-deps:
	@./tests/install-deps.sh

# The tools first (clang for the fuzzer comes from there), then the builds.
# The fuzzer gets TEST_FUZZ_SECONDS in `make test` (CI's time budget);
# `make fuzz` runs it for FUZZ_SECONDS.
TEST_FUZZ_SECONDS ?= 3
test: test-deps
	@$(MAKE) --no-print-directory -j2 all unit-tests fuzz-build
	@FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) $(RUN_TESTS) $(TEST_SUITES)

test-unit: $(UNIT_BIN)
	@$(RUN_TESTS) unit
test-tcl: all
	@$(RUN_TESTS) tcl
test-tcl-redis:
	@$(RUN_TESTS) tcl-redis
test-integration: all
	@$(RUN_TESTS) integration
test-durability: all
	@$(RUN_TESTS) durability
test-s3: all
	@$(RUN_TESTS) s3
test-diff: all
	@$(RUN_TESTS) diff

# The sanitizer run builds into build/san and never touches src/casq-server.
# (The random sealing unit test runs 3 seeds there, 8 in the unit suite.)
# The job frameworks' end to end (frameworks.py: Celery's 1,000 tasks and
# RQ, also on a redis-server) is left out there for CI's time budget: the
# server paths it drives (lists, BRPOP, EVALSHA, pub/sub) run under the
# sanitizers in python_client, bullmq and the tcl suite.
SAN := address,undefined
test-sanitize:
	@$(MAKE) --no-print-directory -j2 SANITIZE=$(SAN) build/san/casq-server build/san/tests/unit-tests
	@CASQ_BIN=$(abspath build/san/casq-server) UNIT_BIN=$(abspath build/san/tests/unit-tests) \
		CASQ_SANITIZE=1 CASQ_SEAL_RUNS=3 INTEGRATION_SKIP=frameworks TEST_LOG_DIR=$(abspath build/test-logs/san) \
		tests/run_all.sh unit tcl integration

valgrind-test: all
	@CASQ_BIN=$(abspath $(BIN)) tests/run_all.sh valgrind

# libFuzzer targets for the RESP parser and the state-document loader
# (fuzz_resp, fuzz_state): the server objects rebuilt by
# clang with ASan+UBSan and fuzzer coverage. FUZZ_SECONDS bounds the run.
FUZZ_BUILD   := build/fuzz
FUZZ_CC      := clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) $(DEP_CFLAGS) -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_OBJS    := $(patsubst src/%.c,$(FUZZ_BUILD)/%.o,$(filter-out src/server.c,$(SRCS)))

fuzz-build: $(FUZZ_BUILD)/fuzz_resp $(FUZZ_BUILD)/fuzz_state

$(FUZZ_BUILD)/fuzz_resp: $(FUZZ_BUILD)/fuzz_resp.o $(FUZZ_BUILD)/testhelp.o $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(DEP_LIBS)

$(FUZZ_BUILD)/fuzz_state: $(FUZZ_BUILD)/fuzz_state.o $(FUZZ_BUILD)/testhelp.o $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(DEP_LIBS)

$(FUZZ_BUILD)/%.o: src/%.c | $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/testhelp.o: tests/unit/testhelp.c | $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/fuzz_resp.o: tests/fuzz/fuzz_resp.c | $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/fuzz_state.o: tests/fuzz/fuzz_state.c | $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_BUILD):
	@mkdir -p $@

-include $(wildcard $(FUZZ_BUILD)/*.d)

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BIN=$(abspath $(FUZZ_BUILD)/fuzz_resp) tests/run_all.sh fuzz
