/* jsonutil.c -- byte strings, base64, IDs and counters in the state
 * document's JSON (see jsonutil.h and docs/state-format.md). */
#include "jsonutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* ========================================================================
 * Writing
 * ===================================================================== */

int jsonIsPlainText(const unsigned char *p, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        if (c < 0x80) {
            if (c == 0) return 0;
            i++;
            continue;
        }
        size_t need;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            cp = c & 0x07;
        } else {
            return 0; /* continuation byte, overlong lead (C0/C1) or > F4 */
        }
        if (len - i <= need) return 0; /* truncated sequence */
        for (size_t k = 1; k <= need; k++) {
            unsigned char cc = p[i + k];
            if ((cc & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (cc & 0x3F);
        }
        /* Overlong forms, surrogates, beyond Unicode. */
        if (need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
        if (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
        i += need + 1;
    }
    return 1;
}

sds jsonCatString(sds out, const char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    out = sdsMakeRoomFor(out, len + 2);
    out = sdscatlen(out, "\"", 1);
    size_t run = 0; /* start of the pending run of bytes needing no escape */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        if (i > run) out = sdscatlen(out, p + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t elen = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        }
        out = sdscatlen(out, esc, elen);
    }
    if (len > run) out = sdscatlen(out, p + run, len - run);
    return sdscatlen(out, "\"", 1);
}

sds base64Encode(sds out, const unsigned char *p, size_t len) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t olen = (len + 2) / 3 * 4;
    out = sdsMakeRoomFor(out, olen);
    char *d = out + sdslen(out);
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8) | p[i + 2];
        *d++ = tab[(v >> 18) & 63];
        *d++ = tab[(v >> 12) & 63];
        *d++ = tab[(v >> 6) & 63];
        *d++ = tab[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len) v |= (uint32_t)p[i + 1] << 8;
        *d++ = tab[(v >> 18) & 63];
        *d++ = tab[(v >> 12) & 63];
        *d++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        *d++ = '=';
    }
    sdsIncrLen(out, olen);
    return out;
}

static int base64Value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

sds base64Decode(const char *s, size_t len) {
    if (len % 4) return NULL;
    sds out = sdsMakeRoomFor(sdsempty(), len / 4 * 3);
    for (size_t i = 0; i < len; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)s[i + k];
            if (c == '=' && i + 4 == len && k >= 2) {
                v[k] = 0;
                pad++;
                continue;
            }
            if (pad) goto bad; /* data after padding */
            v[k] = base64Value(c);
            if (v[k] < 0) goto bad;
        }
        uint32_t w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) | (uint32_t)v[3];
        unsigned char b[3] = {(unsigned char)(w >> 16), (unsigned char)(w >> 8), (unsigned char)w};
        /* Non-canonical encodings (stray bits in the padding) are refused. */
        if ((pad == 1 && (w & 0xFF)) || (pad == 2 && (w & 0xFFFF))) goto bad;
        out = sdscatlen(out, b, (size_t)(3 - pad));
    }
    return out;
bad:
    sdsfree(out);
    return NULL;
}

sds jsonCatBytes(sds out, const char *p, size_t len) {
    if (jsonIsPlainText((const unsigned char *)p, len)) return jsonCatString(out, p, len);
    out = sdscatlen(out, "{\"base64\":\"", 11);
    out = base64Encode(out, (const unsigned char *)p, len);
    return sdscatlen(out, "\"}", 2);
}

#define JSON_MAX_EXACT 9007199254740992ULL /* 2^53 */

/* Decimal digits of v at p; returns the end. Two digits per step. */
static char *putDigits(char *p, uint64_t v) {
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char tmp[24];
    char *t = tmp + sizeof(tmp);
    while (v >= 100) {
        unsigned i = (unsigned)(v % 100) * 2;
        v /= 100;
        *--t = pairs[i + 1];
        *--t = pairs[i];
    }
    if (v >= 10) {
        unsigned i = (unsigned)v * 2;
        *--t = pairs[i + 1];
        *--t = pairs[i];
    } else {
        *--t = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof(tmp) - t);
    memcpy(p, t, n);
    return p + n;
}

char *jsonPutU64(char *p, uint64_t v) {
    if (v <= JSON_MAX_EXACT) return putDigits(p, v);
    *p++ = '"';
    p = putDigits(p, v);
    *p++ = '"';
    return p;
}

char *jsonPutI64(char *p, int64_t v) {
    int quote = v > (int64_t)JSON_MAX_EXACT || v < -(int64_t)JSON_MAX_EXACT;
    if (quote) *p++ = '"';
    if (v < 0) {
        *p++ = '-';
        p = putDigits(p, (uint64_t)0 - (uint64_t)v);
    } else {
        p = putDigits(p, (uint64_t)v);
    }
    if (quote) *p++ = '"';
    return p;
}

char *jsonPutStreamID(char *p, const streamID *id) {
    *p++ = '"';
    p = putDigits(p, id->ms);
    *p++ = '-';
    p = putDigits(p, id->seq);
    *p++ = '"';
    return p;
}

sds jsonCatStreamID(sds out, const streamID *id) {
    out = sdsMakeRoomFor(out, 48);
    char *end = jsonPutStreamID(out + sdslen(out), id);
    sdsIncrLen(out, (size_t)(end - (out + sdslen(out))));
    return out;
}

sds jsonCatU64(sds out, uint64_t v) {
    out = sdsMakeRoomFor(out, 24);
    char *end = jsonPutU64(out + sdslen(out), v);
    sdsIncrLen(out, (size_t)(end - (out + sdslen(out))));
    return out;
}

sds jsonCatI64(sds out, int64_t v) {
    out = sdsMakeRoomFor(out, 24);
    char *end = jsonPutI64(out + sdslen(out), v);
    sdsIncrLen(out, (size_t)(end - (out + sdslen(out))));
    return out;
}

/* ========================================================================
 * Reading
 * ===================================================================== */

static int readError(sds *err, const char *what, const char *problem) {
    if (err) *err = sdscatprintf(sdsempty(), "%s: %s", what, problem);
    return C_ERR;
}

int jsonGetBytes(const cJSON *item, sds *out, const char *what, sds *err) {
    if (cJSON_IsString(item)) {
        const char *s = item->valuestring;
        *out = sdsnewlen(s, strlen(s));
        return C_OK;
    }
    if (cJSON_IsObject(item)) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(item, "base64");
        if (!cJSON_IsString(b) || cJSON_GetArraySize(item) != 1)
            return readError(err, what, "expected a string or {\"base64\": \"...\"}");
        sds d = base64Decode(b->valuestring, strlen(b->valuestring));
        if (!d) return readError(err, what, "invalid base64");
        *out = d;
        return C_OK;
    }
    return readError(err, what, "expected a string or {\"base64\": \"...\"}");
}

/* Strict unsigned decimal: digits only, no sign, no leading zeros. */
static int parseU64(const char *s, size_t len, uint64_t *v) {
    unsigned long long u;
    if (!string2ull(s, len, &u)) return 0;
    *v = u;
    return 1;
}

int streamIDFromString(const char *s, size_t len, streamID *id) {
    const char *dash = memchr(s, '-', len);
    if (!dash) return 0;
    size_t mslen = (size_t)(dash - s);
    return parseU64(s, mslen, &id->ms) && parseU64(dash + 1, len - mslen - 1, &id->seq);
}

int jsonGetStreamID(const cJSON *item, streamID *id, const char *what, sds *err) {
    if (!cJSON_IsString(item)) return readError(err, what, "expected an ID string \"<ms>-<seq>\"");
    const char *s = item->valuestring;
    if (!streamIDFromString(s, strlen(s), id)) return readError(err, what, "malformed ID (expected \"<ms>-<seq>\")");
    return C_OK;
}

int jsonGetU64(const cJSON *item, uint64_t *v, const char *what, sds *err) {
    if (cJSON_IsString(item)) {
        const char *s = item->valuestring;
        if (!parseU64(s, strlen(s), v)) return readError(err, what, "malformed unsigned integer");
        return C_OK;
    }
    if (!cJSON_IsNumber(item)) return readError(err, what, "expected a non-negative integer");
    double d = item->valuedouble;
    if (!(d >= 0) || d > (double)JSON_MAX_EXACT || floor(d) != d)
        return readError(err, what, "expected a non-negative integer (values above 2^53 must be strings)");
    *v = (uint64_t)d;
    return C_OK;
}

int jsonGetI64(const cJSON *item, int64_t *v, const char *what, sds *err) {
    if (cJSON_IsString(item)) {
        const char *s = item->valuestring;
        long long ll;
        if (!string2ll(s, strlen(s), &ll)) return readError(err, what, "malformed integer");
        *v = ll;
        return C_OK;
    }
    if (!cJSON_IsNumber(item)) return readError(err, what, "expected an integer");
    double d = item->valuedouble;
    if (!(d >= -(double)JSON_MAX_EXACT && d <= (double)JSON_MAX_EXACT) || floor(d) != d)
        return readError(err, what, "expected an integer (values beyond 2^53 must be strings)");
    *v = (int64_t)d;
    return C_OK;
}

int jsonCheckFields(const cJSON *obj, const char *const *allowed, const char *where, sds *err) {
    unsigned seen = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, obj) {
        int k;
        for (k = 0; allowed[k]; k++)
            if (f->string && !strcmp(f->string, allowed[k])) break;
        if (!allowed[k]) {
            *err = sdscatprintf(sdsempty(), "%s: unknown field \"%.64s\" (not part of the state format)", where,
                                f->string ? f->string : "");
            return C_ERR;
        }
        if (seen & (1u << k)) {
            *err = sdscatprintf(sdsempty(), "%s: field \"%s\" appears twice", where, allowed[k]);
            return C_ERR;
        }
        seen |= 1u << k;
    }
    return C_OK;
}
