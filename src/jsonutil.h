/* jsonutil.h -- helpers to write and read the state document's JSON
 * (docs/state-format.md): binary-safe byte strings (a JSON string when the
 * bytes are readable UTF-8, {"base64": "..."} otherwise), base64, stream
 * IDs, and 64-bit counters that may exceed a double's exact range.
 *
 * Writers append to an sds; readers take cJSON items and return C_OK /
 * C_ERR, never crashing on hostile input. */
#ifndef CASQ_JSONUTIL_H
#define CASQ_JSONUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "idtree.h"
#include "sds.h"

/* 1 if p[0..len) is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF)
 * and holds no NUL byte: such bytes can be written as a JSON string. */
int jsonIsPlainText(const unsigned char *p, size_t len);

/* Appends p[0..len) as a JSON string (quotes and escapes included). The
 * bytes must be plain text (jsonIsPlainText). */
sds jsonCatString(sds out, const char *p, size_t len);
/* Appends a byte string in the document's format: a JSON string or
 * {"base64":"..."}. */
sds jsonCatBytes(sds out, const char *p, size_t len);
/* Appends "<ms>-<seq>" with the quotes. */
sds jsonCatStreamID(sds out, const streamID *id);
/* Appends an unsigned counter: a JSON integer up to 2^53, else a decimal
 * string (exactness over doubles). */
sds jsonCatU64(sds out, uint64_t v);
/* Same for signed values (timestamps may be negative in theory). */
sds jsonCatI64(sds out, int64_t v);

/* Raw writers for hot loops: write at p (room must be reserved: 24 bytes
 * for a number, 44 for an ID) and return the end. Same formats as the
 * jsonCat* functions. */
char *jsonPutU64(char *p, uint64_t v);
char *jsonPutI64(char *p, int64_t v);
char *jsonPutStreamID(char *p, const streamID *id);

/* Standard base64 with padding. */
sds base64Encode(sds out, const unsigned char *p, size_t len);
/* Decodes standard base64 (padding required, no whitespace). Returns NULL
 * on malformed input. */
sds base64Decode(const char *s, size_t len);

/* Readers. On error they return C_ERR and set *err to a new sds naming
 * `what` (e.g. "stream entry field"). */
/* Checks that obj has only the allowed fields (a NULL-terminated list of
 * at most 32), each once: the state document's readers refuse unknown and
 * duplicate fields at every level, so nothing they do not understand is
 * dropped by the next commit. */
int jsonCheckFields(const cJSON *obj, const char *const *allowed, const char *where, sds *err);
int jsonGetBytes(const cJSON *item, sds *out, const char *what, sds *err);
int jsonGetStreamID(const cJSON *item, streamID *id, const char *what, sds *err);
int jsonGetU64(const cJSON *item, uint64_t *v, const char *what, sds *err);
int jsonGetI64(const cJSON *item, int64_t *v, const char *what, sds *err);
/* Parses "<ms>-<seq>" strictly (decimal, no sign, both parts present). */
int streamIDFromString(const char *s, size_t len, streamID *id);

#endif
