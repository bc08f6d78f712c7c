/* sds.c -- binary-safe dynamic strings (see sds.h). */
#include "sds.h"
#include "zmalloc.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* casq's sds is not hiredis's, but the names are the same, and libhiredis
 * (the broker link, broker_link.c) calls its own sds functions through the
 * PLT: were these exported from the executable, they would interpose on
 * hiredis's and corrupt its strings. Hidden, they stay casq's alone. */
#pragma GCC visibility push(hidden)

sds sdsnewlen(const void *init, size_t len) {
    struct sdshdr *sh = zmalloc(sizeof(*sh) + len + 1);
    sh->len = len;
    sh->alloc = len;
    if (len && init) memcpy(sh->buf, init, len);
    else if (len) memset(sh->buf, 0, len);
    sh->buf[len] = '\0';
    return sh->buf;
}

sds sdsnew(const char *init) { return sdsnewlen(init, init ? strlen(init) : 0); }
sds sdsempty(void) { return sdsnewlen("", 0); }
sds sdsdup(const sds s) { return sdsnewlen(s, sdslen(s)); }

void sdsfree(sds s) {
    if (s) zfree(SDS_HDR(s));
}

/* Grows the allocation so that addlen more bytes fit. Doubles small strings,
 * grows big ones by 1MB steps, as Redis does, so appends are amortised O(1). */
sds sdsMakeRoomFor(sds s, size_t addlen) {
    if (sdsavail(s) >= addlen) return s;
    size_t len = sdslen(s);
    size_t newlen = len + addlen;
    if (newlen < 1024 * 1024) newlen *= 2;
    else newlen += 1024 * 1024;
    struct sdshdr *sh = zrealloc(SDS_HDR(s), sizeof(*sh) + newlen + 1);
    sh->alloc = newlen;
    return sh->buf;
}

void sdsIncrLen(sds s, size_t incr) {
    struct sdshdr *sh = SDS_HDR(s);
    sh->len += incr;
    sh->buf[sh->len] = '\0';
}

void sdssetlen(sds s, size_t len) {
    SDS_HDR(s)->len = len;
    s[len] = '\0';
}

sds sdscatlen(sds s, const void *t, size_t len) {
    s = sdsMakeRoomFor(s, len);
    memcpy(s + sdslen(s), t, len);
    sdsIncrLen(s, len);
    return s;
}

sds sdscat(sds s, const char *t) { return sdscatlen(s, t, strlen(t)); }
sds sdscatsds(sds s, const sds t) { return sdscatlen(s, t, sdslen(t)); }

sds sdscpylen(sds s, const char *t, size_t len) {
    sdsclear(s);
    return sdscatlen(s, t, len);
}

sds sdscatvprintf(sds s, const char *fmt, va_list ap) {
    char static_buf[1024];
    va_list cpy;
    va_copy(cpy, ap);
    int n = vsnprintf(static_buf, sizeof(static_buf), fmt, cpy);
    va_end(cpy);
    if (n < 0) return s;
    if ((size_t)n < sizeof(static_buf)) return sdscatlen(s, static_buf, (size_t)n);
    s = sdsMakeRoomFor(s, (size_t)n + 1);
    va_copy(cpy, ap);
    vsnprintf(s + sdslen(s), (size_t)n + 1, fmt, cpy);
    va_end(cpy);
    sdsIncrLen(s, (size_t)n);
    return s;
}

sds sdscatprintf(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(s, fmt, ap);
    va_end(ap);
    return s;
}

/* Appends a quoted, escaped representation of p, the way redis-cli and the
 * Redis logs show binary strings. */
sds sdscatrepr(sds s, const char *p, size_t len) {
    s = sdscatlen(s, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)p[i];
        switch (ch) {
        case '\\':
        case '"': s = sdscatprintf(s, "\\%c", ch); break;
        case '\n': s = sdscatlen(s, "\\n", 2); break;
        case '\r': s = sdscatlen(s, "\\r", 2); break;
        case '\t': s = sdscatlen(s, "\\t", 2); break;
        case '\a': s = sdscatlen(s, "\\a", 2); break;
        case '\b': s = sdscatlen(s, "\\b", 2); break;
        default:
            if (isprint(ch)) s = sdscatlen(s, (char *)&ch, 1);
            else s = sdscatprintf(s, "\\x%02x", ch);
        }
    }
    return sdscatlen(s, "\"", 1);
}

sds sdsfromlonglong(long long value) {
    char buf[32];
    int n = ll2string(buf, sizeof(buf), value);
    return sdsnewlen(buf, (size_t)n);
}

sds sdscatlonglong(sds s, long long value) {
    char buf[32];
    int n = ll2string(buf, sizeof(buf), value);
    return sdscatlen(s, buf, (size_t)n);
}

/* Keeps bytes start..end inclusive; negative indexes count from the end. */
void sdsrange(sds s, long start, long end) {
    long len = (long)sdslen(s);
    if (len == 0) return;
    if (start < 0) start = len + start < 0 ? 0 : len + start;
    if (end < 0) end = len + end < 0 ? 0 : len + end;
    long newlen = (start > end) ? 0 : (end - start) + 1;
    if (newlen != 0) {
        if (start >= len) newlen = 0;
        else if (end >= len) {
            end = len - 1;
            newlen = (start > end) ? 0 : (end - start) + 1;
        }
    }
    if (start && newlen) memmove(s, s + start, (size_t)newlen);
    sdssetlen(s, (size_t)newlen);
}

void sdsclear(sds s) { sdssetlen(s, 0); }

void sdstolower(sds s) {
    for (size_t i = 0, l = sdslen(s); i < l; i++) s[i] = (char)tolower((unsigned char)s[i]);
}

void sdstoupper(sds s) {
    for (size_t i = 0, l = sdslen(s); i < l; i++) s[i] = (char)toupper((unsigned char)s[i]);
}

int sdscmp(const sds a, const sds b) {
    size_t l1 = sdslen(a), l2 = sdslen(b);
    int cmp = memcmp(a, b, l1 < l2 ? l1 : l2);
    if (cmp) return cmp;
    return (l1 > l2) - (l1 < l2);
}

sds sdsRemoveFreeSpace(sds s) {
    struct sdshdr *sh = zrealloc(SDS_HDR(s), sizeof(*sh) + sdslen(s) + 1);
    sh->alloc = sh->len;
    return sh->buf;
}

size_t sdsAllocSize(const sds s) { return sizeof(struct sdshdr) + sdsalloc(s) + 1; }

sds sdstrim(sds s, const char *cset) {
    size_t len = sdslen(s), start = 0, end = len;
    while (start < len && strchr(cset, s[start])) start++;
    while (end > start && strchr(cset, s[end - 1])) end--;
    if (start) memmove(s, s + start, end - start);
    sdssetlen(s, end - start);
    return s;
}

/* ------------------------------------------------------------------------
 * Argument splitting (config lines and inline commands)
 * --------------------------------------------------------------------- */

static int isHexDigit(char c) { return isxdigit((unsigned char)c) != 0; }

static int hexDigitToInt(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 0;
}

/* Splits a line into arguments the way redis-cli and redis.conf do: spaces
 * separate, "double quotes" allow \n \r \t \b \a \\ \" and \xHH escapes,
 * 'single quotes' allow only \'. Returns NULL on unbalanced quotes. */
sds *sdssplitargs(const char *line, int *argc) {
    const char *p = line;
    sds current = NULL;
    sds *vector = NULL;
    *argc = 0;
    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) {
            if (!vector) vector = zmalloc(sizeof(sds));
            return vector;
        }
        int inq = 0, insq = 0, done = 0;
        if (!current) current = sdsempty();
        while (!done) {
            if (inq) {
                if (*p == '\\' && p[1] == 'x' && isHexDigit(p[2]) && isHexDigit(p[3])) {
                    char byte = (char)(hexDigitToInt(p[2]) * 16 + hexDigitToInt(p[3]));
                    current = sdscatlen(current, &byte, 1);
                    p += 3;
                } else if (*p == '\\' && p[1]) {
                    char c;
                    p++;
                    switch (*p) {
                    case 'n': c = '\n'; break;
                    case 'r': c = '\r'; break;
                    case 't': c = '\t'; break;
                    case 'b': c = '\b'; break;
                    case 'a': c = '\a'; break;
                    default: c = *p; break;
                    }
                    current = sdscatlen(current, &c, 1);
                } else if (*p == '"') {
                    /* closing quote must be followed by a space or nothing */
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err;
                } else {
                    current = sdscatlen(current, p, 1);
                }
            } else if (insq) {
                if (*p == '\\' && p[1] == '\'') {
                    p++;
                    current = sdscatlen(current, "'", 1);
                } else if (*p == '\'') {
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err;
                } else {
                    current = sdscatlen(current, p, 1);
                }
            } else {
                switch (*p) {
                case ' ':
                case '\n':
                case '\r':
                case '\t':
                case '\0': done = 1; break;
                case '"': inq = 1; break;
                case '\'': insq = 1; break;
                default: current = sdscatlen(current, p, 1); break;
                }
            }
            if (*p) p++;
        }
        vector = zrealloc(vector, ((size_t)*argc + 1) * sizeof(sds));
        vector[*argc] = current;
        (*argc)++;
        current = NULL;
    }
err:
    while ((*argc)--) sdsfree(vector[*argc]);
    zfree(vector);
    sdsfree(current);
    *argc = 0;
    return NULL;
}

void sdsfreesplitres(sds *tokens, int count) {
    if (!tokens) return;
    while (count--) sdsfree(tokens[count]);
    zfree(tokens);
}

/* ------------------------------------------------------------------------
 * Number <-> string conversion
 * --------------------------------------------------------------------- */

int ull2string(char *buf, size_t len, unsigned long long v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (v % 10));
        v /= 10;
    } while (v);
    if ((size_t)n + 1 > len) return 0;
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

int ll2string(char *buf, size_t len, long long value) {
    if (value >= 0) return ull2string(buf, len, (unsigned long long)value);
    if (len < 2) return 0;
    unsigned long long v = (unsigned long long)(-(value + 1)) + 1;
    buf[0] = '-';
    int n = ull2string(buf + 1, len - 1, v);
    return n ? n + 1 : 0;
}

int string2ull(const char *s, size_t slen, unsigned long long *value) {
    if (slen == 0 || slen > 20) return 0;
    if (slen > 1 && s[0] == '0') return 0;
    unsigned long long v = 0;
    for (size_t i = 0; i < slen; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned long long d = (unsigned long long)(s[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *value = v;
    return 1;
}

int string2ll(const char *s, size_t slen, long long *value) {
    if (slen == 0) return 0;
    int neg = 0;
    if (s[0] == '-') {
        neg = 1;
        s++;
        slen--;
        if (slen == 0) return 0;
    }
    unsigned long long v;
    if (!string2ull(s, slen, &v)) return 0;
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        if (v == 0) return 0; /* "-0" is not a canonical integer */
        *value = (v == (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        *value = (long long)v;
    }
    return 1;
}

#pragma GCC visibility pop
