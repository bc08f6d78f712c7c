/* t_stream_manifest.c -- manifests: the records of a stream's older
 * segments, out of the root (issue 9, design.md §3, docs/state-format.md
 * "Manifests").
 *
 * Every commit writes the root, so whatever the root holds is written
 * again at every commit. A stream's record of each segment (~220 bytes)
 * is such a thing: without manifests a backlog sealed into many small
 * segments would make every root big, so segments had to be merged into
 * bigger ones -- each merge writing the entries again. A manifest is an
 * immutable object, written like a segment (create-only, durable before a
 * root names it, collected after the grace period), that holds the
 * records of older segments. The root keeps at most segment-root-records
 * records per stream; beyond that the oldest go into a new manifest, and
 * the root names the manifest instead.
 *
 * A manifest is never changed. When a segment's record changes (entries
 * of it deleted: its live ranges shrink) the root writes the current
 * record again, which takes precedence over the manifest's copy (the
 * segment is "overridden"); when a segment is dropped, the root's record
 * of the manifest lists it as dead. A manifest whose records are mostly
 * out of date is rewritten, and small manifests are merged fanout at a
 * time, so that the root's overrides, dead names and manifest records stay
 * few. What is rewritten is records, never entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "jsonutil.h"
#include "persist.h"
#include "segment.h"
#include "server.h"
#include "t_stream.h"
#include "zmalloc.h"

/* ========================================================================
 * The books
 * ===================================================================== */

static streamManifest *manifestNew(const char *name, uint64_t bytes, uint32_t crc, uint32_t count) {
    streamManifest *m = zcalloc(sizeof(*m));
    m->name = sdsnew(name);
    m->bytes = bytes;
    m->crc = crc;
    m->count = count;
    segmentRegister(m->name, bytes);
    segmentManifestLive(1);
    return m;
}

static void manifestFree(streamManifest *m) {
    segmentUnregister(m->name, m->bytes);
    segmentManifestLive(-1);
    sdsfree(m->name);
    for (uint32_t i = 0; i < m->ndead; i++) sdsfree(m->dead[i]);
    zfree(m->dead);
    sdsfree(m->json);
    zfree(m);
}

static void manifestAddDead(streamManifest *m, const char *name) {
    if (m->ndead == m->dead_alloc) {
        m->dead_alloc = m->dead_alloc ? m->dead_alloc * 2 : 8;
        m->dead = zrealloc(m->dead, m->dead_alloc * sizeof(*m->dead));
    }
    m->dead[m->ndead++] = sdsnew(name);
    sdsfree(m->json);
    m->json = NULL;
}

static void streamAddManifest(stream *s, streamManifest *m) {
    if (s->nmans == s->mans_alloc) {
        s->mans_alloc = s->mans_alloc ? s->mans_alloc * 2 : 4;
        s->mans = zrealloc(s->mans, s->mans_alloc * sizeof(*s->mans));
    }
    s->mans[s->nmans++] = m;
}

/* Takes m out of s's list (not freed). */
static void streamRemoveManifest(stream *s, streamManifest *m) {
    for (uint32_t i = 0; i < s->nmans; i++) {
        if (s->mans[i] != m) continue;
        memmove(s->mans + i, s->mans + i + 1, (s->nmans - i - 1) * sizeof(*s->mans));
        s->nmans--;
        return;
    }
}

/* The state stops naming m: garbage, deleted after the grace period. */
static void manifestDrop(stream *s, streamManifest *m) {
    streamRemoveManifest(s, m);
    segmentDropped(m->name);
    manifestFree(m);
}

/* g's record leaves its manifest (g moved to another, or was dropped). */
static void manifestRelease(streamSegment *g) {
    streamManifest *m = g->man;
    m->nlive--;
    if (g->overridden) m->nover--;
    g->man = NULL;
    g->overridden = 0;
}

void streamManifestSegmentDropped(stream *s, streamSegment *g) {
    streamManifest *m = g->man;
    if (!m) return;
    manifestRelease(g);
    if (m->nlive == 0) {
        manifestDrop(s, m);
    } else {
        manifestAddDead(m, g->name);
        m->changed_ms = server.mstime_cache;
    }
}

void streamManifestSegmentChanged(streamSegment *g) {
    if (!g->man) return;
    g->man->changed_ms = server.mstime_cache;
    if (g->overridden) return;
    g->overridden = 1;
    g->man->nover++;
}

void streamManifestsFree(stream *s) {
    for (uint32_t i = 0; i < s->nmans; i++) {
        segmentDropped(s->mans[i]->name);
        manifestFree(s->mans[i]);
    }
    zfree(s->mans);
    s->mans = NULL;
    s->nmans = s->mans_alloc = 0;
}

/* ========================================================================
 * The root's records of manifests
 * ===================================================================== */

/* {"name":..,"count":..,"bytes":..,"crc32":..,"dead":[names]} */
static sds manifestCatRecord(sds out, const streamManifest *m) {
    out = sdscatlen(out, "{\"name\":", 8);
    out = jsonCatString(out, m->name, sdslen(m->name));
    out = sdscatlen(out, ",\"count\":", 9);
    out = jsonCatU64(out, m->count);
    out = sdscatlen(out, ",\"bytes\":", 9);
    out = jsonCatU64(out, m->bytes);
    out = sdscatlen(out, ",\"crc32\":", 9);
    out = jsonCatU64(out, m->crc);
    out = sdscatlen(out, ",\"dead\":[", 9);
    for (uint32_t i = 0; i < m->ndead; i++) {
        if (i) out = sdscatlen(out, ",", 1);
        out = jsonCatString(out, m->dead[i], sdslen(m->dead[i]));
    }
    return sdscatlen(out, "]}", 2);
}

sds streamCatManifestsJSON(sds out, stream *s) {
    if (!s->nmans) return out;
    out = sdscatlen(out, ",\"manifests\":[", 14);
    for (uint32_t i = 0; i < s->nmans; i++) {
        streamManifest *m = s->mans[i];
        if (!m->json) m->json = manifestCatRecord(sdsempty(), m);
        if (i) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, m->json, sdslen(m->json));
    }
    return sdscatlen(out, "]", 1);
}

/* ========================================================================
 * Planning a manifest, attaching it once durable
 * ===================================================================== */

/* Records of a manifest out of date: the root writes them again
 * (overridden) or lists them as dead. */
static int manifestMostlyStale(const streamManifest *m) {
    return (uint64_t)(m->ndead + m->nover) * 2 >= m->count;
}

/* The manifest being consumed from its head, or NULL: the oldest one
 * (the head segment itself, being consumed, stays in the root: see
 * streamPlanManifest), if one of its segments was dropped or changed
 * lately and what the root writes for it (dead names, overriding
 * records) is still small. A trimmed stream (MAXLEN, MINID) or workers
 * deleting the jobs they did consume a manifest's segments that way (a
 * node sealed in pieces leaves the next segment changed), and will most
 * likely drop the rest soon: rewriting it now would be a manifest written
 * for nothing (as segmentMostlyDead spares a segment consumed from its
 * head). */
static const streamManifest *manifestConsumed(const stream *s, uint32_t root_max, long long now_ms) {
    const streamManifest *m = NULL;
    for (uint32_t i = 0; i < s->nsegs && !m; i++) m = s->segs[i]->man;
    if (!m || !m->changed_ms || now_ms - m->changed_ms >= SEG_HEAD_QUIET_MS || m->ndead + m->nover >= root_max)
        return NULL;
    return m;
}

/* Size tier of a manifest by its live records: tier 0 below base *
 * fanout, tier t from base * fanout^t. */
static int manifestTier(uint32_t records, uint32_t base, int fanout) {
    int t = 0;
    uint64_t b = base ? base : 1;
    while (records >= b * (uint64_t)fanout && t < 30) {
        b *= (uint64_t)fanout;
        t++;
    }
    return t;
}

static void planAddRecord(streamManifestPlan *p, uint32_t *alloc, streamSegment *g) {
    if (p->count == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 16;
        p->names = zrealloc(p->names, *alloc * sizeof(*p->names));
        p->records = zrealloc(p->records, *alloc * sizeof(*p->records));
    }
    p->names[p->count] = sdsdup(g->name);
    p->records[p->count] = sdsdup(streamSegmentRecord(g));
    p->count++;
}

/* Marks the manifests a rewrite replaces in pick[]: every mostly stale
 * one, and the first tier that has fanout of them (up to fanout) -- not
 * one being consumed from its head. Returns how many. */
static uint32_t planPickManifests(stream *s, uint32_t root_max, int fanout, long long now_ms, unsigned char *pick) {
    uint32_t picked = 0, tiers[31] = {0}, base = root_max / 2;
    const streamManifest *spared = manifestConsumed(s, root_max, now_ms);
    for (uint32_t i = 0; i < s->nmans; i++) {
        if (s->mans[i] == spared) continue;
        if (manifestMostlyStale(s->mans[i])) {
            pick[i] = 1;
            picked++;
        } else {
            tiers[manifestTier(s->mans[i]->nlive, base, fanout)]++;
        }
    }
    int merge_tier = -1;
    for (int t = 0; t <= 30 && merge_tier < 0; t++)
        if (tiers[t] >= (uint32_t)fanout) merge_tier = t;
    uint32_t merged = 0;
    for (uint32_t i = 0; merge_tier >= 0 && i < s->nmans && merged < (uint32_t)fanout; i++) {
        if (pick[i] || s->mans[i] == spared || manifestTier(s->mans[i]->nlive, base, fanout) != merge_tier) continue;
        pick[i] = 1;
        picked++;
        merged++;
    }
    return picked;
}

size_t streamPlanManifest(stream *s, const char *name, uint32_t root_max, int fanout, long long now_ms,
                          streamManifestPlan *plan, sds *text) {
    memset(plan, 0, sizeof(*plan));
    *text = NULL;
    if (root_max < 2) root_max = 2;
    if (fanout < 2) fanout = 2;
    uint32_t in_root = 0, alloc = 0;
    for (uint32_t i = 0; i < s->nsegs; i++) in_root += s->segs[i]->man == NULL;

    if (in_root > root_max) {
        /* The oldest records out of the root, leaving root_max / 2; not
         * a segment being consumed from its head: it is about to go. */
        uint32_t want = in_root - root_max / 2;
        for (uint32_t i = 0; i < s->nsegs && plan->count < want; i++) {
            streamSegment *g = s->segs[i];
            if (!g->man && !streamSegmentConsumed(g, now_ms)) planAddRecord(plan, &alloc, g);
        }
    }
    if (!plan->count && s->nmans) {
        unsigned char *pick = zcalloc(s->nmans);
        if (planPickManifests(s, root_max, fanout, now_ms, pick)) {
            plan->replaced = zmalloc(sizeof(*plan->replaced) * s->nmans);
            for (uint32_t i = 0; i < s->nmans; i++)
                if (pick[i]) plan->replaced[plan->nreplaced++] = sdsdup(s->mans[i]->name);
            for (uint32_t i = 0; i < s->nsegs; i++) {
                streamSegment *g = s->segs[i];
                for (uint32_t k = 0; g->man && k < s->nmans; k++)
                    if (pick[k] && s->mans[k] == g->man) planAddRecord(plan, &alloc, g);
            }
        }
        zfree(pick);
    }
    if (!plan->count) {
        streamManifestPlanFree(plan);
        return 0;
    }
    sds t = sdsempty();
    t = sdscatlen(t, "{\"format\":", 10);
    t = jsonCatU64(t, PERSIST_SEGMENT_FORMAT);
    t = sdscatlen(t, ",\"manifest\":", 12);
    t = jsonCatString(t, name, strlen(name));
    t = sdscatlen(t, ",\"count\":", 9);
    t = jsonCatU64(t, plan->count);
    t = sdscatlen(t, ",\"segments\":[", 13);
    for (uint32_t i = 0; i < plan->count; i++) {
        if (i) t = sdscatlen(t, ",", 1);
        t = sdscatlen(t, plan->records[i], sdslen(plan->records[i]));
    }
    t = sdscatlen(t, "]}\n", 3);
    *text = t;
    return sdslen(t);
}

void streamManifestPlanFree(streamManifestPlan *plan) {
    for (uint32_t i = 0; i < plan->count; i++) {
        sdsfree(plan->names[i]);
        sdsfree(plan->records[i]);
    }
    for (uint32_t i = 0; i < plan->nreplaced; i++) sdsfree(plan->replaced[i]);
    zfree(plan->names);
    zfree(plan->records);
    zfree(plan->replaced);
    memset(plan, 0, sizeof(*plan));
}

static streamManifest *streamFindManifest(stream *s, const char *name) {
    for (uint32_t i = 0; i < s->nmans; i++)
        if (!strcmp(s->mans[i]->name, name)) return s->mans[i];
    return NULL;
}

uint32_t streamAttachManifest(stream *s, const streamManifestPlan *plan, const char *name, uint64_t bytes,
                              uint32_t crc) {
    streamManifest *m = manifestNew(name, bytes, crc, plan->count);
    streamManifest **replaced = zcalloc(sizeof(*replaced) * (plan->nreplaced + 1));
    for (uint32_t i = 0; i < plan->nreplaced; i++) replaced[i] = streamFindManifest(s, plan->replaced[i]);
    dict *byname = dictCreate(&sdsKeyDictType);
    for (uint32_t i = 0; i < s->nsegs; i++) dictAdd(byname, sdsdup(s->segs[i]->name), s->segs[i]);

    for (uint32_t i = 0; i < plan->count; i++) {
        streamSegment *g = dictFetchValue(byname, plan->names[i]);
        int movable = g && !g->man;
        for (uint32_t k = 0; g && g->man && k < plan->nreplaced; k++) movable |= replaced[k] == g->man;
        if (!movable) {
            /* Dropped since the plan: named by nothing but this manifest's
             * text, so dead in it from the start. */
            manifestAddDead(m, plan->names[i]);
            continue;
        }
        if (g->man) manifestRelease(g);
        g->man = m;
        m->nlive++;
        if (strcmp(streamSegmentRecord(g), plan->records[i])) {
            g->overridden = 1;
            m->nover++;
        }
    }
    dictRelease(byname);
    for (uint32_t i = 0; i < plan->nreplaced; i++)
        if (replaced[i] && replaced[i]->nlive == 0) manifestDrop(s, replaced[i]);
    zfree(replaced);
    if (m->nlive == 0) {
        manifestFree(m);
        return 0;
    }
    streamAddManifest(s, m);
    return m->nlive;
}

/* ========================================================================
 * Loading
 * ===================================================================== */

static int manifestLoadFail(sds *err, sds msg) {
    *err = msg;
    return C_ERR;
}

/* Reads the root's record of a manifest and the manifest it names; the
 * manifest is added to s, its parsed object to out->docs. */
static int manifestLoadOne(stream *s, const cJSON *rec, size_t index, streamLoadRecords *out, dict *owner_of,
                           sds *err) {
    static const char *const fields[] = {"name", "count", "bytes", "crc32", "dead", NULL};
    static const char *const mfields[] = {"format", "manifest", "count", "segments", NULL};
    char what[48];
    snprintf(what, sizeof(what), "manifests[%zu]", index);
    if (!cJSON_IsObject(rec)) return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: expected an object", what));
    if (jsonCheckFields(rec, fields, what, err) != C_OK) return C_ERR;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
    if (!cJSON_IsString(name) || !segmentNameValid(name->valuestring, strlen(name->valuestring)))
        return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: \"name\" must be a segment name", what));
    uint64_t count, bytes, crc;
    sds msg = NULL;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "count"), &count, "count", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "bytes"), &bytes, "bytes", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "crc32"), &crc, "crc32", &msg) != C_OK) {
        sds e = sdscatprintf(sdsempty(), "%s (%s): %s", what, name->valuestring, msg);
        sdsfree(msg);
        return manifestLoadFail(err, e);
    }
    const cJSON *dead = cJSON_GetObjectItemCaseSensitive(rec, "dead");
    if (crc > UINT32_MAX || count == 0 || count > UINT32_MAX || !cJSON_IsArray(dead))
        return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s (%s): bad crc32, count or dead list", what,
                                                  name->valuestring));
    streamManifest *m = manifestNew(name->valuestring, bytes, (uint32_t)crc, (uint32_t)count);
    streamAddManifest(s, m);
    const cJSON *d;
    cJSON_ArrayForEach(d, dead) {
        if (!cJSON_IsString(d))
            return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s (%s): dead: expected segment names", what,
                                                      m->name));
        manifestAddDead(m, d->valuestring);
    }

    const char *data;
    size_t len;
    if (!segmentSourceGet(m->name, &data, &len))
        return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: manifest %s is missing from the store", what,
                                                  m->name));
    if (len != bytes || streamSegmentCRC(data, len) != m->crc)
        return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: manifest %s is corrupt: %zu bytes with CRC-32 "
                                                  "%u, the root records %llu bytes with CRC-32 %u", what, m->name,
                                                  len, streamSegmentCRC(data, len), (unsigned long long)bytes,
                                                  m->crc));
    cJSON *doc = cJSON_ParseWithLength(data, len);
    if (!doc) return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: manifest %s: invalid JSON", what, m->name));
    out->docs = zrealloc(out->docs, sizeof(*out->docs) * (out->ndocs + 1));
    out->docs[out->ndocs++] = doc;
    uint64_t format, mcount;
    const cJSON *mname = cJSON_GetObjectItemCaseSensitive(doc, "manifest");
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "segments");
    if (!cJSON_IsObject(doc) || jsonCheckFields(doc, mfields, "manifest", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(doc, "format"), &format, "format", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(doc, "count"), &mcount, "count", &msg) != C_OK ||
        format != PERSIST_SEGMENT_FORMAT || !cJSON_IsString(mname) || strcmp(mname->valuestring, m->name) ||
        !cJSON_IsArray(recs) || (uint64_t)cJSON_GetArraySize(recs) != mcount || mcount != count) {
        sds e = sdscatprintf(sdsempty(), "%s: manifest %s: %s", what, m->name,
                             msg ? msg : "its format, name, count or segments differ from the root's record");
        sdsfree(msg);
        return manifestLoadFail(err, e);
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, recs) {
        const cJSON *rn = cJSON_IsObject(r) ? cJSON_GetObjectItemCaseSensitive(r, "name") : NULL;
        if (!cJSON_IsString(rn))
            return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s: manifest %s: a record without a name", what,
                                                      m->name));
        sds key = sdsnew(rn->valuestring);
        if (dictFind(owner_of, key)) {
            sds e = sdscatprintf(sdsempty(), "%s: segment %s is named by two manifests", what, key);
            sdsfree(key);
            return manifestLoadFail(err, e);
        }
        dictAdd(owner_of, key, (void *)r);
    }
    /* Each dead name is one of its records, once. */
    for (uint32_t i = 0; i < m->ndead; i++) {
        int found = 0;
        cJSON_ArrayForEach(r, recs) found += !strcmp(cJSON_GetObjectItemCaseSensitive(r, "name")->valuestring,
                                                     m->dead[i]);
        for (uint32_t k = 0; k < i; k++) found += !strcmp(m->dead[k], m->dead[i]);
        if (found != 1)
            return manifestLoadFail(err, sdscatprintf(sdsempty(), "%s (%s): dead segment %s is not one of its "
                                                      "records, or is listed twice", what, m->name, m->dead[i]));
    }
    return C_OK;
}

static int manifestIsDead(const streamManifest *m, const char *name) {
    for (uint32_t i = 0; i < m->ndead; i++)
        if (!strcmp(m->dead[i], name)) return 1;
    return 0;
}

static void loadRecordsAdd(streamLoadRecords *out, size_t *alloc, const cJSON *rec, streamManifest *owner,
                           int overridden) {
    if (out->n == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 16;
        out->recs = zrealloc(out->recs, *alloc * sizeof(*out->recs));
        out->owners = zrealloc(out->owners, *alloc * sizeof(*out->owners));
        out->overridden = zrealloc(out->overridden, *alloc);
    }
    out->recs[out->n] = rec;
    out->owners[out->n] = owner;
    out->overridden[out->n] = (unsigned char)overridden;
    out->n++;
}

int streamLoadRecordsMake(stream *s, const cJSON *manifests, const cJSON *segments, streamLoadRecords *out,
                          sds *err) {
    memset(out, 0, sizeof(*out));
    if (segments && !cJSON_IsArray(segments)) return manifestLoadFail(err, sdsnew("segments: expected an array"));
    if (manifests && !cJSON_IsArray(manifests))
        return manifestLoadFail(err, sdsnew("manifests: expected an array"));
    size_t alloc = 0, index = 0;
    const cJSON *rec;
    if (!manifests || !manifests->child) {
        cJSON_ArrayForEach(rec, segments) loadRecordsAdd(out, &alloc, rec, NULL, 0);
        return C_OK;
    }
    /* name -> its record in a manifest */
    dict *owner_of = dictCreate(&sdsKeyDictType);
    int ret = C_ERR;
    cJSON_ArrayForEach(rec, manifests) {
        if (manifestLoadOne(s, rec, index++, out, owner_of, err) != C_OK) goto done;
    }
    /* The root's records: overrides of a manifest's, or its own. */
    dict *overrides = dictCreate(&sdsKeyDictType);
    cJSON_ArrayForEach(rec, segments) {
        const cJSON *rn = cJSON_IsObject(rec) ? cJSON_GetObjectItemCaseSensitive(rec, "name") : NULL;
        if (!cJSON_IsString(rn)) continue; /* segmentLoad says what is wrong */
        sds key = sdsnew(rn->valuestring);
        if (dictFind(owner_of, key) && !dictFind(overrides, key)) {
            dictAdd(overrides, key, (void *)rec);
            continue;
        }
        sdsfree(key);
    }
    ret = C_OK;
    for (uint32_t i = 0; i < s->nmans && ret == C_OK; i++) {
        streamManifest *m = s->mans[i];
        const cJSON *recs = cJSON_GetObjectItemCaseSensitive(out->docs[i], "segments");
        cJSON_ArrayForEach(rec, recs) {
            const char *rname = cJSON_GetObjectItemCaseSensitive(rec, "name")->valuestring;
            sds key = sdsnew(rname);
            const cJSON *over = dictFetchValue(overrides, key);
            sdsfree(key);
            if (manifestIsDead(m, rname)) {
                if (over) {
                    *err = sdscatprintf(sdsempty(), "segment %s is dead in manifest %s and named by the root",
                                        rname, m->name);
                    ret = C_ERR;
                    break;
                }
                continue;
            }
            loadRecordsAdd(out, &alloc, over ? over : rec, m, over != NULL);
        }
    }
    if (ret == C_OK) {
        cJSON_ArrayForEach(rec, segments) {
            const cJSON *rn = cJSON_IsObject(rec) ? cJSON_GetObjectItemCaseSensitive(rec, "name") : NULL;
            if (cJSON_IsString(rn)) {
                sds key = sdsnew(rn->valuestring);
                int over = dictFetchValue(overrides, key) == rec;
                sdsfree(key);
                if (over) continue;
            }
            loadRecordsAdd(out, &alloc, rec, NULL, 0);
        }
    }
    dictRelease(overrides);
done:
    dictRelease(owner_of);
    return ret;
}

void streamLoadRecordsFree(streamLoadRecords *r) {
    for (size_t i = 0; i < r->ndocs; i++) cJSON_Delete(r->docs[i]);
    zfree(r->docs);
    zfree(r->recs);
    zfree(r->owners);
    zfree(r->overridden);
    memset(r, 0, sizeof(*r));
}

void streamManifestsSettle(stream *s) {
    for (uint32_t i = s->nmans; i-- > 0;)
        if (s->mans[i]->nlive == 0) manifestDrop(s, s->mans[i]);
}
