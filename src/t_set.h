/* t_set.h -- what other modules need of the set type (t_set.c).
 *
 * A set value (robj type OBJ_SET) keeps Redis 7.2's encoding rules: an
 * "intset" while every member is an integer and there are at most
 * set-max-intset-entries of them, a "listpack" while there are at most
 * set-max-listpack-entries members of at most set-max-listpack-value bytes,
 * a "hashtable" otherwise; like Redis a set never goes back to a smaller
 * encoding. The small encodings keep Redis's member order (an intset is
 * sorted, a listpack in insertion order), so SMEMBERS of a small set
 * replies exactly what Redis replies.
 *
 * Members are binary-safe byte strings. The functions below take a const
 * robj of type OBJ_SET (the caller checked the type). */
#ifndef CASQ_T_SET_H
#define CASQ_T_SET_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* Number of members. */
unsigned long setTypeSize(const robj *o);
/* 1 if m[0..len) is a member. */
int setTypeIsMember(const robj *o, const char *m, size_t len);

/* Iteration over every member. The set must not change while an iterator
 * is open. setTypeNext returns a member (borrowed: valid until the next
 * call or the release; copy it to keep it), or NULL at the end. */
typedef struct setTypeIterator setTypeIterator;
setTypeIterator *setTypeInitIterator(const robj *o);
sds setTypeNext(setTypeIterator *it);
void setTypeReleaseIterator(setTypeIterator *it);

/* A new empty set object that will receive about size_hint members, the
 * first being `first` (Redis's setTypeCreate: the encoding is chosen by
 * them); the members are added with setTypeAdd. */
robj *setTypeCreate(const char *first, size_t firstlen, size_t size_hint);
/* Adds m[0..len); 1 if it was not a member. Converts the encoding by
 * Redis's rules. */
int setTypeAdd(robj *o, const char *m, size_t len);
/* Removes m[0..len); 1 if it was a member. */
int setTypeRemove(robj *o, const char *m, size_t len);

#endif
