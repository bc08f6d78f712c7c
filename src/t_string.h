/* t_string.h -- the string type (t_string.c): what other modules need to
 * make and read string values. */
#ifndef CASQ_T_STRING_H
#define CASQ_T_STRING_H

#include <stddef.h>

#include "server.h"

/* A new string object holding p[0..len), encoded as Redis's
 * tryObjectEncoding would (int, embstr or raw). */
robj *createStringObject(const char *p, size_t len);
/* The bytes of a string object (o->type must be OBJ_STRING). */
const char *stringObjectPtr(const robj *o);
size_t stringObjectLen(const robj *o);

#endif
