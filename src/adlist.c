/* adlist.c -- a generic doubly linked list (see adlist.h). */
#include "adlist.h"
#include "zmalloc.h"

list *listCreate(void) {
    list *l = zmalloc(sizeof(*l));
    l->head = l->tail = NULL;
    l->len = 0;
    l->free = NULL;
    return l;
}

void listEmpty(list *l) {
    listNode *n = l->head;
    while (n) {
        listNode *next = n->next;
        if (l->free) l->free(n->value);
        zfree(n);
        n = next;
    }
    l->head = l->tail = NULL;
    l->len = 0;
}

void listRelease(list *l) {
    if (!l) return;
    listEmpty(l);
    zfree(l);
}

void listLinkNodeTail(list *l, listNode *n) {
    n->next = NULL;
    n->prev = l->tail;
    if (l->tail) l->tail->next = n;
    else l->head = n;
    l->tail = n;
    l->len++;
}

listNode *listAddNodeTail(list *l, void *value) {
    listNode *n = zmalloc(sizeof(*n));
    n->value = value;
    listLinkNodeTail(l, n);
    return n;
}

listNode *listAddNodeHead(list *l, void *value) {
    listNode *n = zmalloc(sizeof(*n));
    n->value = value;
    n->prev = NULL;
    n->next = l->head;
    if (l->head) l->head->prev = n;
    else l->tail = n;
    l->head = n;
    l->len++;
    return n;
}

void listUnlinkNode(list *l, listNode *n) {
    if (n->prev) n->prev->next = n->next;
    else l->head = n->next;
    if (n->next) n->next->prev = n->prev;
    else l->tail = n->prev;
    n->next = n->prev = NULL;
    l->len--;
}

void listDelNode(list *l, listNode *n) {
    listUnlinkNode(l, n);
    if (l->free) l->free(n->value);
    zfree(n);
}

listNode *listSearchKey(list *l, void *key) {
    for (listNode *n = l->head; n; n = n->next)
        if (n->value == key) return n;
    return NULL;
}

/* Moves every node of o to the end of l, in order; o is left empty. */
void listJoin(list *l, list *o) {
    if (!o->len) return;
    o->head->prev = l->tail;
    if (l->tail) l->tail->next = o->head;
    else l->head = o->head;
    l->tail = o->tail;
    l->len += o->len;
    o->head = o->tail = NULL;
    o->len = 0;
}
