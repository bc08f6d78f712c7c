#!/bin/sh
# Checks for the Debian -dev packages casq links against and installs the
# missing ones with apt-get. casq vendors no third-party source: these are
# the only libraries it uses.
#   hiredis   (libhiredis-dev)        RESP client side, broker forwarding
#   libevent  (libevent-dev)          the event loop and timers
#   libcurl   (libcurl4-openssl-dev)  HTTP for the S3 store
#   cJSON     (libcjson-dev)          parsing the state document
#   zlib      (zlib1g-dev)            CRC-32 of segments
#   libcrypto (libssl-dev)            SHA-256 and constant-time compare of passwords
#   libssl    (libssl-dev)            TLS on tls-port (OpenSSL)
#   Lua 5.1   (liblua5.1-0-dev)       EVAL / EVALSHA scripts (Redis's Lua version)
#   lua-cjson (lua-cjson-dev)         the scripts' cjson library (2.1.0, as Redis's)
#   lua-bitop (lua-bitop-dev)         the scripts' bit library (1.0.2, as Redis's)
set -e
missing=""
check() { # pkg-config-name debian-package
    if ! pkg-config --exists "$1" 2>/dev/null; then missing="$missing $2"; fi
}
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
check hiredis libhiredis-dev
check libevent libevent-dev
check libcurl libcurl4-openssl-dev
check libcjson libcjson-dev
check zlib zlib1g-dev
check lua5.1 liblua5.1-0-dev
check lua5.1-cjson lua-cjson-dev
check lua5.1-bitop lua-bitop-dev
check libcrypto libssl-dev
check libssl libssl-dev
if [ -n "$missing" ]; then
    # Each package once (libssl-dev provides libcrypto and libssl).
    # shellcheck disable=SC2086 # split on purpose
    missing=$(printf '%s\n' $missing | sort -u | tr '\n' ' ')
    echo "deps: installing $missing"
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
for p in hiredis libevent libcurl libcjson zlib lua5.1 lua5.1-cjson lua5.1-bitop libcrypto libssl; do
    printf 'deps: %-12s %s\n' "$p" "$(pkg-config --modversion $p)"
done
