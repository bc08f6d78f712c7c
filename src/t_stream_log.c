/* t_stream_log.c -- a stream's changes as commit log records
 * (docs/state-format.md "The commit log").
 *
 * A commit that is not a checkpoint writes, for every stream that changed
 * since the last commit, what a loader needs to bring the stream it has
 * (from the root and the records before) to the stream as it is now. Job
 * queues change their streams in two ways: entries appended (XADD) and
 * consumer-group state (XREADGROUP, XACK, XCLAIM ...). So a stream's
 * change is written as a *delta*: the entries appended since the last
 * commit, the oldest entries trimmed (MAXLEN, MINID: from the head, so the
 * new first ID says which), the stream's counters, and its groups whole (a
 * queue's PEL is its jobs in flight: small). Anything else -- entries
 * deleted elsewhere (XDEL, ACKED trims: holes), a stream never persisted
 * under this key -- cannot be said as a delta,
 * and the commit becomes a checkpoint (the root written whole), as every
 * commit was in format 2.
 *
 * What the persisted state holds of a stream is its *mark*: its last
 * entry, length, entries-added and max-deleted-id as of the last commit
 * that wrote it. A commit sets the stream's flight mark; the mark becomes
 * the stream's once that commit succeeded (streamLogPromote: commits are
 * numbered, one in flight at a time, and the commit module says which
 * landed last). */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "jsonutil.h"
#include "t_stream.h"

/* ------------------------------------------------------------------------
 * Holes: the IDs the log may still have to say
 * --------------------------------------------------------------------- */

void streamLogNoteHole(stream *s, const streamID *id) {
    s->holes++;
    if (!server.log_tracking) {
        s->log_dels_base = s->holes;
        s->log_dels_n = 0;
        return;
    }
    if (s->log_dels_n == s->log_dels_alloc) {
        s->log_dels_alloc = s->log_dels_alloc ? s->log_dels_alloc * 2 : 16;
        s->log_dels = zrealloc(s->log_dels, sizeof(streamID) * s->log_dels_alloc);
    }
    s->log_dels[s->log_dels_n++] = *id;
}

/* The holes up to number `upto` are persisted: their IDs go. */
static void dropHolesBefore(stream *s, uint64_t upto) {
    if (upto <= s->log_dels_base) return;
    uint64_t drop = upto - s->log_dels_base;
    if (drop >= s->log_dels_n) {
        s->log_dels_n = 0;
    } else {
        memmove(s->log_dels, s->log_dels + drop, sizeof(streamID) * (s->log_dels_n - drop));
        s->log_dels_n -= (uint32_t)drop;
    }
    s->log_dels_base = upto;
    if (!s->log_dels_n && s->log_dels_alloc > 64) {
        zfree(s->log_dels);
        s->log_dels = NULL;
        s->log_dels_alloc = 0;
    }
}

/* The flight mark becomes the mark if its commit landed. */
static void streamLogPromote(stream *s, uint64_t ok_gen) {
    if (s->log_flight.gen && s->log_flight.gen <= ok_gen) {
        s->log_mark = s->log_flight;
        memset(&s->log_flight, 0, sizeof(s->log_flight));
        dropHolesBefore(s, s->log_mark.holes);
    }
}

void streamLogForget(stream *s) {
    memset(&s->log_mark, 0, sizeof(s->log_mark));
    memset(&s->log_flight, 0, sizeof(s->log_flight));
    dropHolesBefore(s, s->holes);
}

void streamLogMarkFlight(stream *s, uint64_t gen) {
    streamLogMark *m = &s->log_flight;
    m->gen = gen;
    if (!streamLastValidID(s, &m->last_entry)) m->last_entry = (streamID){0, 0};
    m->length = s->length;
    m->added = s->entries_added;
    m->max_deleted = s->max_deleted_entry_id;
    m->holes = s->holes;
}

/* Appends one entry as the document writes it: [id, field, value, ...]. */
static sds catEntry(sds out, streamIterator *si, const streamID *id, int64_t numfields) {
    out = sdscatlen(out, "[", 1);
    out = jsonCatStreamID(out, id);
    while (numfields--) {
        const unsigned char *f, *v;
        size_t flen, vlen;
        streamIteratorGetField(si, &f, &flen, &v, &vlen);
        out = sdscatlen(out, ",", 1);
        out = jsonCatBytes(out, (const char *)f, flen);
        out = sdscatlen(out, ",", 1);
        out = jsonCatBytes(out, (const char *)v, vlen);
    }
    return sdscatlen(out, "]", 1);
}

/* The entries after `after`, as a JSON array's items; *count: how many. */
static sds catEntriesAfter(sds out, stream *s, const streamID *after, uint64_t *count) {
    streamID start = *after;
    *count = 0;
    if (!streamIDEqZero(after) && streamIncrID(&start) != C_OK) return out;
    streamIterator si;
    streamIteratorStart(&si, s, &start, NULL, 0);
    streamID id;
    int64_t numfields;
    while (streamIteratorGetID(&si, &id, &numfields)) {
        if (*count) out = sdscatlen(out, ",", 1);
        out = catEntry(out, &si, &id, numfields);
        (*count)++;
    }
    streamIteratorStop(&si);
    return out;
}

streamLogKind streamLogPlan(stream *s, uint64_t gen, uint64_t ok_gen) {
    streamLogPromote(s, ok_gen);
    const streamLogMark *m = &s->log_mark;
    if (!m->gen) {
        /* Never persisted under this key since the load (new, renamed,
         * copied): its whole record, unless that would name segments,
         * which only a root may do. */
        if (s->nsegs) return STREAM_LOG_CHECKPOINT;
        streamLogMarkFlight(s, gen);
        return STREAM_LOG_WHOLE;
    }
    /* Entries appended, the oldest trimmed (MAXLEN, MINID), holes (XDEL):
     * what a delta says -- the holes only while their IDs are all known. */
    if (s->entries_added < m->added || s->holes < m->holes || m->holes < s->log_dels_base ||
        s->log_dels_base + s->log_dels_n != s->holes)
        return STREAM_LOG_CHECKPOINT;
    return STREAM_LOG_DELTA;
}

streamLogKind streamCatLogDelta(sds *out, stream *s, uint64_t gen) {
    const streamLogMark *m = &s->log_mark;
    uint64_t appended = s->entries_added - m->added;
    sds o = sdscatlen(*out, "{\"base_length\":", 15);
    o = jsonCatU64(o, m->length);
    o = sdscatlen(o, ",\"base_entries_added\":", 22);
    o = jsonCatU64(o, m->added);
    o = streamCatCounters(sdscatlen(o, ",", 1), s);
    o = sdscatlen(o, ",\"entries\":[", 12);
    uint64_t count;
    o = catEntriesAfter(o, s, &m->last_entry, &count);
    /* The new entries there are at most those appended, and what is left
     * of the old ones a part of them. Anything else (XSETID moving
     * counters) is not a delta. */
    *out = o;
    if (count > appended || s->length < count || s->length - count > m->length) return STREAM_LOG_CHECKPOINT;
    o = sdscatlen(o, "]", 1);
    if (s->holes != m->holes) {
        o = sdscatlen(o, ",\"deleted\":[", 12);
        for (uint64_t h = m->holes; h < s->holes; h++) {
            if (h != m->holes) o = sdscatlen(o, ",", 1);
            o = jsonCatStreamID(o, &s->log_dels[h - s->log_dels_base]);
        }
        o = sdscatlen(o, "]", 1);
    }
    o = sdscatlen(o, ",\"groups\":", 10);
    o = streamCatGroupsJSON(o, s);
    o = streamIdmpCatJSON(o, s);
    *out = sdscatlen(o, "}", 1);
    streamLogMarkFlight(s, gen);
    return STREAM_LOG_DELTA;
}

/* ------------------------------------------------------------------------
 * Replaying a delta
 * --------------------------------------------------------------------- */

static int deltaFail(sds *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int deltaFail(sds *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    *err = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    return C_ERR;
}

/* Appends one entry of a delta: [id, field, value, ...]. */
static int appendEntry(stream *s, const cJSON *e, size_t index, sds *err) {
    int n = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0;
    if (n < 3 || n % 2 == 0)
        return deltaFail(err, "entries[%zu]: expected [id, field, value, ...] with at least one field", index);
    sds msg = NULL;
    streamID id;
    const cJSON *item = e->child;
    if (jsonGetStreamID(item, &id, "id", &msg) != C_OK) {
        *err = sdscatprintf(sdsempty(), "entries[%zu]: %s", index, msg);
        sdsfree(msg);
        return C_ERR;
    }
    int64_t numfields = (n - 1) / 2;
    sds *argv = zcalloc(sizeof(sds) * (size_t)(n - 1));
    int ret = C_OK;
    int i = 0;
    for (item = item->next; item; item = item->next, i++) {
        if (jsonGetBytes(item, &argv[i], "field or value", &msg) != C_OK) {
            *err = sdscatprintf(sdsempty(), "entries[%zu]: %s", index, msg);
            sdsfree(msg);
            ret = C_ERR;
            break;
        }
    }
    if (ret == C_OK && streamAppendItem(s, argv, numfields, NULL, &id, 1) != C_OK)
        ret = deltaFail(err, "entries[%zu]: %s", index,
                        errno == EDOM ? "its ID is not above the stream's last ID" : "the entry is too large");
    for (int j = 0; j < n - 1; j++) sdsfree(argv[j]);
    zfree(argv);
    return ret;
}

static void freeGroups(stream *s) {
    for (size_t i = 0; i < s->num_cgroups; i++) streamFreeCG(s->cgroups[i]);
    s->num_cgroups = 0;
    s->cg_created = 0;
}

int streamApplyLogDelta(stream *s, const cJSON *d, sds *err) {
    static const char *const fields[] = {"base_length", "base_entries_added", "length", "last_id",
                                         "first_id", "max_deleted_id", "entries_added", "entries",
                                         "deleted", "groups", "idmp", NULL};
    sds msg = NULL;
    if (!cJSON_IsObject(d)) return deltaFail(err, "expected an object");
    if (jsonCheckFields(d, fields, "stream_delta", &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    uint64_t base_length, base_added, length, added;
    streamID last_id, first_id, max_deleted;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(d, "base_length"), &base_length, "base_length", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(d, "base_entries_added"), &base_added, "base_entries_added",
                   &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(d, "length"), &length, "length", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(d, "entries_added"), &added, "entries_added", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(d, "last_id"), &last_id, "last_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(d, "first_id"), &first_id, "first_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(d, "max_deleted_id"), &max_deleted, "max_deleted_id",
                        &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    /* The record was written against the stream as the records before it
     * left it: anything else means a record is missing or out of place. */
    if (s->length != base_length || s->entries_added != base_added)
        return deltaFail(err,
                         "it continues a stream of length %llu with %llu entries added, but the stream has "
                         "length %llu and %llu entries added",
                         (unsigned long long)base_length, (unsigned long long)base_added,
                         (unsigned long long)s->length, (unsigned long long)s->entries_added);
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(d, "entries");
    if (!cJSON_IsArray(entries)) return deltaFail(err, "entries: expected an array");
    /* The oldest entries trimmed: those below the new first one (all of
     * them when the stream is left empty; the listed ones are above). */
    if (length == 0) streamTrimByLength(s, 0, 0);
    else streamTrimByID(s, first_id, 0);
    size_t index = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
        if (appendEntry(s, e, index++, err) != C_OK) return C_ERR;
    }
    /* Then the holes (some may be of entries appended and removed between
     * two commits, never listed: nothing to remove). */
    const cJSON *deleted = cJSON_GetObjectItemCaseSensitive(d, "deleted");
    if (deleted && !cJSON_IsArray(deleted)) return deltaFail(err, "deleted: expected an array");
    size_t di = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, deleted) {
        streamID id;
        if (jsonGetStreamID(x, &id, "deleted", &msg) != C_OK) {
            *err = sdscatprintf(sdsempty(), "deleted[%zu]: %s", di, msg);
            sdsfree(msg);
            return C_ERR;
        }
        streamDeleteItem(s, &id);
        di++;
    }
    if (s->length != length)
        return deltaFail(err, "length is %llu but the stream has %llu entries with the ones listed",
                         (unsigned long long)length, (unsigned long long)s->length);
    if (added < length || added - base_added < index)
        return deltaFail(err, "entries_added %llu does not match the %zu entries listed",
                         (unsigned long long)added, index);
    streamID expect_first = {0, 0};
    if (s->length && !streamFirstValidID(s, &expect_first)) expect_first = (streamID){0, 0};
    if (streamCompareID(&first_id, &expect_first) != 0)
        return deltaFail(err, "first_id does not match the first entry (0-0 when empty)");
    if (streamCompareID(&max_deleted, &last_id) > 0) return deltaFail(err, "max_deleted_id is greater than last_id");
    streamID last_entry;
    if (streamLastValidID(s, &last_entry) && streamCompareID(&last_id, &last_entry) < 0)
        return deltaFail(err, "last_id is below the last entry");
    s->last_id = last_id;
    s->first_id = first_id;
    s->max_deleted_entry_id = max_deleted;
    s->entries_added = added;
    freeGroups(s);
    if (streamGroupsFromJSON(s, cJSON_GetObjectItemCaseSensitive(d, "groups"), &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    streamIdmpFree(s->idmp);
    s->idmp = NULL;
    const cJSON *idmp = cJSON_GetObjectItemCaseSensitive(d, "idmp");
    if (idmp && streamIdmpFromJSON(s, idmp, &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    return C_OK;
}
