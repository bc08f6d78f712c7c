/* util.c -- argument parsing helpers that reply on error, and glob
 * matching (KEYS, SCAN MATCH, CONFIG GET, COMMAND LIST PATTERN). */
#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ========================================================================
 * Numbers from arguments
 * ===================================================================== */

int getLongLongFromObjectOrReply(client *c, sds o, long long *target, const char *msg) {
    long long v;
    if (!string2ll(o, sdslen(o), &v)) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorNotInteger(c);
        return C_ERR;
    }
    *target = v;
    return C_OK;
}

int getLongFromObjectOrReply(client *c, sds o, long *target, const char *msg) {
    long long v;
    if (getLongLongFromObjectOrReply(c, o, &v, msg) != C_OK) return C_ERR;
    if (v < LONG_MIN || v > LONG_MAX) {
        if (msg) addReplyError(c, msg);
        else addReplyError(c, "value is out of range");
        return C_ERR;
    }
    *target = (long)v;
    return C_OK;
}

int getRangeLongFromObjectOrReply(client *c, sds o, long min, long max, long *target, const char *msg) {
    if (getLongFromObjectOrReply(c, o, target, msg) != C_OK) return C_ERR;
    if (*target < min || *target > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, value must between %ld and %ld", min, max);
        return C_ERR;
    }
    return C_OK;
}

int getPositiveLongFromObjectOrReply(client *c, sds o, long *target, const char *msg) {
    if (msg) return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, msg);
    return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, "value is out of range, must be positive");
}

int getUnsignedLongLongFromObjectOrReply(client *c, sds o, unsigned long long *target, const char *msg) {
    unsigned long long v;
    if (!string2ull(o, sdslen(o), &v)) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorNotInteger(c);
        return C_ERR;
    }
    *target = v;
    return C_OK;
}

/* Parses a blocking timeout (milliseconds, or seconds with decimals when
 * unit_seconds) into an absolute Unix time in ms; 0 means block forever.
 * Errors are Redis's. */
int getTimeoutFromObjectOrReply(client *c, sds o, long long *timeout_ms, int unit_seconds) {
    long long tval;
    if (unit_seconds) {
        char *end;
        errno = 0;
        long double ftval = strtold(o, &end);
        if (sdslen(o) == 0 || *end != '\0' || errno == ERANGE || isnan((double)ftval)) {
            addReplyError(c, "timeout is not a float or out of range");
            return C_ERR;
        }
        if (ftval < 0) {
            addReplyError(c, "timeout is negative");
            return C_ERR;
        }
        long double ms = ftval * 1000.0L;
        if (ms > (long double)LLONG_MAX) {
            addReplyError(c, "timeout is out of range");
            return C_ERR;
        }
        tval = (long long)ceill(ms);
    } else {
        if (getLongLongFromObjectOrReply(c, o, &tval, "timeout is not an integer or out of range") != C_OK)
            return C_ERR;
        if (tval < 0) {
            addReplyError(c, "timeout is negative");
            return C_ERR;
        }
    }
    if (tval > 0) {
        if (tval > LLONG_MAX - commandTimeSnapshot()) {
            addReplyError(c, "timeout is out of range");
            return C_ERR;
        }
        tval += commandTimeSnapshot();
    }
    *timeout_ms = tval;
    return C_OK;
}

/* ========================================================================
 * Glob-style matching, Redis semantics: * ? [abc] [^a] [a-z] and \x
 * ===================================================================== */

static int stringmatchlenImpl(const char *pattern, int patternLen, const char *string, int stringLen, int nocase,
                              int *skipLongerMatches, int nesting) {
    /* Guard against patterns like "*****...": deep recursion. */
    if (nesting > 1000) return 0;
    while (patternLen && stringLen) {
        switch (pattern[0]) {
        case '*':
            while (patternLen && pattern[1] == '*') {
                pattern++;
                patternLen--;
            }
            if (patternLen == 1) return 1; /* match */
            while (stringLen) {
                if (stringmatchlenImpl(pattern + 1, patternLen - 1, string, stringLen, nocase, skipLongerMatches,
                                       nesting + 1))
                    return 1;
                if (*skipLongerMatches) return 0;
                string++;
                stringLen--;
            }
            /* No match for the rest of the string: longer prefixes of '*'
             * cannot help either. */
            *skipLongerMatches = 1;
            return 0;
        case '?':
            string++;
            stringLen--;
            break;
        case '[': {
            int not, match;
            pattern++;
            patternLen--;
            not = pattern[0] == '^';
            if (not) {
                pattern++;
                patternLen--;
            }
            match = 0;
            for (;;) {
                if (pattern[0] == '\\' && patternLen >= 2) {
                    pattern++;
                    patternLen--;
                    if (pattern[0] == string[0]) match = 1;
                } else if (pattern[0] == ']') {
                    break;
                } else if (patternLen == 0) {
                    pattern--;
                    patternLen++;
                    break;
                } else if (patternLen >= 3 && pattern[1] == '-') {
                    int start = (unsigned char)pattern[0];
                    int end = (unsigned char)pattern[2];
                    int c = (unsigned char)string[0];
                    if (start > end) {
                        int t = start;
                        start = end;
                        end = t;
                    }
                    if (nocase) {
                        start = tolower(start);
                        end = tolower(end);
                        c = tolower(c);
                    }
                    pattern += 2;
                    patternLen -= 2;
                    if (c >= start && c <= end) match = 1;
                } else {
                    if (!nocase) {
                        if (pattern[0] == string[0]) match = 1;
                    } else {
                        if (tolower((unsigned char)pattern[0]) == tolower((unsigned char)string[0])) match = 1;
                    }
                }
                pattern++;
                patternLen--;
            }
            if (not) match = !match;
            if (!match) return 0; /* no match */
            string++;
            stringLen--;
            break;
        }
        case '\\':
            if (patternLen >= 2) {
                pattern++;
                patternLen--;
            }
            /* fall through */
        default:
            if (!nocase) {
                if (pattern[0] != string[0]) return 0;
            } else {
                if (tolower((unsigned char)pattern[0]) != tolower((unsigned char)string[0])) return 0;
            }
            string++;
            stringLen--;
            break;
        }
        pattern++;
        patternLen--;
        if (stringLen == 0) {
            while (patternLen && *pattern == '*') {
                pattern++;
                patternLen--;
            }
            break;
        }
    }
    return patternLen == 0 && stringLen == 0;
}

int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase) {
    int skip = 0;
    return stringmatchlenImpl(pattern, patternLen, string, stringLen, nocase, &skip, 0);
}

/* ========================================================================
 * String <-> number conversions (t_string, t_hash)
 * ===================================================================== */

/* Redis's ld2string: LD_STR_HUMAN is "%.17Lf" without trailing zeroes
 * (INCRBYFLOAT, HINCRBYFLOAT), LD_STR_AUTO "%.17Lg". Returns the length,
 * 0 (and an empty buf) if it does not fit. */
int ld2string(char *buf, size_t len, long double value, int mode) {
    size_t l = 0;
    if (isinf(value)) {
        if (len < 5) goto err;
        if (value > 0) {
            memcpy(buf, "inf", 3);
            l = 3;
        } else {
            memcpy(buf, "-inf", 4);
            l = 4;
        }
    } else if (isnan(value)) {
        if (len < 4) goto err;
        memcpy(buf, "nan", 3);
        l = 3;
    } else if (mode == LD_STR_HUMAN) {
        int n = snprintf(buf, len, "%.17Lf", value);
        if (n < 0 || (size_t)n + 1 > len) goto err;
        l = (size_t)n;
        /* Trailing zeroes after the point go, and the point if bare. */
        if (memchr(buf, '.', l) != NULL) {
            char *p = buf + l - 1;
            while (*p == '0') {
                p--;
                l--;
            }
            if (*p == '.') l--;
        }
        if (l == 2 && buf[0] == '-' && buf[1] == '0') {
            buf[0] = '0';
            l = 1;
        }
    } else {
        int n = snprintf(buf, len, "%.17Lg", value);
        if (n < 0 || (size_t)n + 1 > len) goto err;
        l = (size_t)n;
    }
    buf[l] = '\0';
    return (int)l;
err:
    if (len > 0) buf[0] = '\0';
    return 0;
}

/* Redis's string2ld: the whole of s[0..slen) must be a finite long double
 * (strtold's syntax, no leading space); 1 on success. */
int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    char *eptr;
    long double value = strtold(buf, &eptr);
    if (isspace((unsigned char)buf[0]) || eptr[0] != '\0' || (size_t)(eptr - buf) != slen ||
        (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || fpclassify(value) == FP_ZERO)) ||
        errno == EINVAL || isnan(value))
        return 0;
    if (dp) *dp = value;
    return 1;
}

/* The long double in o, or "ERR value is not a valid float" (msg if set). */
int getLongDoubleFromObjectOrReply(client *c, sds o, long double *target, const char *msg) {
    if (!string2ld(o, sdslen(o), target)) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

/* ========================================================================
 * Double conversions (t_zset)
 * ===================================================================== */

/* Redis's double2ll: the value as a long long when it is an integer that
 * converts exactly (and is within +-LLONG_MAX/2). */
static int double2ll(double d, long long *out) {
    if (d < (double)(-LLONG_MAX / 2) || d > (double)(LLONG_MAX / 2)) return 0;
    long long ll = (long long)d;
    if ((double)ll == d) {
        *out = ll;
        return 1;
    }
    return 0;
}

/* Redis's d2string: "inf", "-inf", "nan", "0" / "-0", an integer's digits,
 * else %.17g. Returns the length written to buf. */
int d2string(char *buf, size_t len, double value) {
    long long lvalue;
    int n;
    if (isnan(value)) n = snprintf(buf, len, "nan");
    else if (isinf(value)) n = snprintf(buf, len, value < 0 ? "-inf" : "inf");
    else if (value == 0) n = snprintf(buf, len, 1.0 / value < 0 ? "-0" : "0");
    else if (double2ll(value, &lvalue)) n = ll2string(buf, len, lvalue);
    else n = snprintf(buf, len, "%.17g", value);
    return n;
}

/* Redis's string2d: the whole of s[0..slen) is a double (strtod syntax, no
 * leading space, not NaN, no overflow). Returns 1 on success. */
int string2d(const char *s, size_t slen, double *dp) {
    char *eptr;
    errno = 0;
    double value = strtod(s, &eptr);
    if (slen == 0 || isspace((unsigned char)s[0]) || (size_t)(eptr - s) != slen ||
        (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL || fpclassify(value) == FP_ZERO)) ||
        isnan(value))
        return 0;
    if (dp) *dp = value;
    return 1;
}

int getDoubleFromObjectOrReply(client *c, sds o, double *target, const char *msg) {
    double v;
    if (!string2d(o, sdslen(o), &v)) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    *target = v;
    return C_OK;
}
