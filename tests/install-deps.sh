#!/bin/sh
# install-deps.sh -- installs what casq's test suites use, beyond the build
# dependencies of deps/install.sh, on Debian 12 (apt-get, as root or with
# sudo). Installs only what is missing, so it is quick to re-run; `make
# test` calls it first.
#
#   redis-server, redis-tools  the reference server (tcl-redis suite, stream
#                              diff test, benchmarks) and redis-cli /
#                              redis-benchmark (integration tests)
#   tcl                        tclsh for tcl-tests/
#   python3, python3-redis     the Python integration tests and helpers
#   python3-celery, python3-rq the job frameworks run end to end
#                              (tests/integration/frameworks.py)
#   nodejs, npm                the ioredis and BullMQ integration tests;
#                              ioredis and bullmq themselves go to
#                              tests/integration/node_modules (versions
#                              pinned by package-lock.json)
#   clang, libclang-rt-14-dev  the libFuzzer target (make fuzz)
#   valgrind                   make valgrind-test
#   procps                     kill and ps (a minimal Debian lacks them)
#   openssl                    the openssl command: the TLS test makes its
#                              throw-away CA and certificates with it
# The S3 suite (tests/s3/rgw.sh) installs the Ceph packages it needs itself.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
missing=""
need_cmd() { # command debian-package
    command -v "$1" >/dev/null 2>&1 || missing="$missing $2"
}
need_cmd redis-server redis-server
need_cmd redis-cli redis-tools
need_cmd redis-benchmark redis-tools
need_cmd tclsh tcl
need_cmd node nodejs
need_cmd npm npm
need_cmd valgrind valgrind
need_cmd clang clang
need_cmd ps procps
need_cmd openssl openssl
# The kill *program* (the harnesses exec it; the shell builtin is not enough).
[ -x /usr/bin/kill ] || [ -x /bin/kill ] || missing="$missing procps"
[ -x /usr/bin/python3 ] || missing="$missing python3"
/usr/bin/python3 -c 'import redis' 2>/dev/null || missing="$missing python3-redis"
/usr/bin/python3 -c 'import celery' 2>/dev/null || missing="$missing python3-celery"
/usr/bin/python3 -c 'import rq' 2>/dev/null || missing="$missing python3-rq"
# libFuzzer's runtime is only a Recommends of clang on Debian.
fuzz_ok() {
    command -v clang >/dev/null 2>&1 || return 1
    t=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$t/f.c"
    clang -fsanitize=fuzzer "$t/f.c" -o "$t/f" >/dev/null 2>&1
    rc=$?
    rm -rf "$t"
    return $rc
}
fuzz_ok || missing="$missing clang libclang-rt-14-dev"

if [ -n "$missing" ]; then
    # Each package once, in a stable order.
    # shellcheck disable=SC2086 # split on purpose
    missing=$(printf '%s\n' $missing | sort -u | tr '\n' ' ')
    echo "test-deps: installing $missing"
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
    # Debian starts redis-server's service on 6379 when it is installed; the
    # tests start their own servers, and 6379 belongs to casq's defaults.
    # A policy-rc.d (only if none exists) keeps services from starting.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee $policy >/dev/null
        $SUDO chmod 755 $policy
    fi
    trap 'if [ -n "$policy" ]; then $SUDO rm -f "$policy"; fi' EXIT
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# ioredis for tests/integration/ioredis_client.js, bullmq for bullmq.js and
# bench/bench_bullmq.sh: npm ci installs both, so either one missing (an
# older checkout's node_modules has no bullmq) brings them in.
nm="$ROOT/tests/integration/node_modules"
if [ ! -f "$nm/ioredis/package.json" ] || [ ! -f "$nm/bullmq/package.json" ]; then
    echo "test-deps: installing ioredis and bullmq (npm ci) into tests/integration/node_modules"
    npm ci --prefix "$ROOT/tests/integration" --no-audit --no-fund --loglevel=error
fi

printf 'test-deps: redis-server %s, tclsh %s, python3-redis %s, celery %s, rq %s, node %s, ioredis %s, bullmq %s, %s\n' \
    "$(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')" \
    "$(echo 'puts [info patchlevel]' | tclsh)" \
    "$(/usr/bin/python3 -c 'import redis; print(redis.__version__)')" \
    "$(/usr/bin/python3 -c 'import celery; print(celery.__version__)')" \
    "$(/usr/bin/python3 -c 'import rq; print(rq.__version__)')" \
    "$(node --version)" \
    "$(node -p "require('$nm/ioredis/package.json').version")" \
    "$(node -p "require('$nm/bullmq/package.json').version")" \
    "$(clang --version | head -n 1)"
