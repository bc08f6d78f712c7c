/* adlist.h -- a generic doubly linked list. */
#ifndef CASQ_ADLIST_H
#define CASQ_ADLIST_H

typedef struct listNode {
    struct listNode *prev; /* towards the head */
    struct listNode *next; /* towards the tail */
    void *value;           /* payload, owned per list->free */
} listNode;

typedef struct list {
    listNode *head;          /* first node or NULL */
    listNode *tail;          /* last node or NULL */
    void (*free)(void *ptr); /* payload destructor, may be NULL */
    unsigned long len;       /* number of nodes */
} list;

#define listLength(l) ((l)->len)
#define listFirst(l) ((l)->head)
#define listLast(l) ((l)->tail)
#define listNodeValue(n) ((n)->value)

list *listCreate(void);
void listRelease(list *l);
void listEmpty(list *l);
listNode *listAddNodeTail(list *l, void *value);
listNode *listAddNodeHead(list *l, void *value);
void listDelNode(list *l, listNode *node);
/* Unlinks a node without freeing its value or the node itself. */
void listUnlinkNode(list *l, listNode *node);
/* Appends an unlinked node. */
void listLinkNodeTail(list *l, listNode *node);
void listJoin(list *l, list *o);
listNode *listSearchKey(list *l, void *key);

#endif
