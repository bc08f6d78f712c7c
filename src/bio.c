/* bio.c -- background I/O jobs: see bio.h.
 *
 * One mutex guards two queues: jobs waiting for a thread, and jobs whose
 * work is over, waiting for the loop. A thread that finishes a job writes
 * one byte to a pipe the loop watches; the loop drains the pipe and runs
 * every finished job's done. */
#include "bio.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "zmalloc.h"

typedef struct bioJob {
    void (*work)(void *arg); /* on a pool thread */
    void (*done)(void *arg); /* then on the loop */
    void *arg;               /* their argument */
    struct bioJob *next;     /* next in its queue */
} bioJob;

typedef struct bioQueue {
    bioJob *head, *tail;
} bioQueue;

struct bioPool {
    pthread_mutex_t mu;   /* guards everything below but the threads */
    pthread_cond_t cv;    /* a job was queued, or the pool is closing */
    bioQueue todo;        /* queued, not started */
    bioQueue finished;    /* work done, done() not yet run */
    unsigned long pending;/* queued + running + finished */
    int closing;          /* bioFree: threads exit when idle */
    int nthreads;         /* threads started */
    pthread_t *threads;   /* them */
    int wake[2];          /* threads -> loop */
    struct event *wake_ev;/* the loop's side */
};

static void queuePush(bioQueue *q, bioJob *j) {
    j->next = NULL;
    if (q->tail) q->tail->next = j;
    else q->head = j;
    q->tail = j;
}

static bioJob *queueTakeAll(bioQueue *q) {
    bioJob *j = q->head;
    q->head = q->tail = NULL;
    return j;
}

static void *bioThreadMain(void *arg) {
    bioPool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->todo.head && !p->closing) pthread_cond_wait(&p->cv, &p->mu);
        if (p->closing) break;
        bioJob *j = p->todo.head;
        p->todo.head = j->next;
        if (!p->todo.head) p->todo.tail = NULL;
        pthread_mutex_unlock(&p->mu);

        j->work(j->arg);

        pthread_mutex_lock(&p->mu);
        queuePush(&p->finished, j);
        ssize_t n;
        do {
            n = write(p->wake[1], "x", 1);
        } while (n == -1 && errno == EINTR);
        /* A full pipe already holds a wake-up: nothing lost. */
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void bioWake(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    bioPool *p = arg;
    char drain[64];
    while (read(fd, drain, sizeof(drain)) > 0) {
    }
    pthread_mutex_lock(&p->mu);
    bioJob *j = queueTakeAll(&p->finished);
    pthread_mutex_unlock(&p->mu);
    while (j) {
        bioJob *next = j->next;
        pthread_mutex_lock(&p->mu);
        p->pending--;
        pthread_mutex_unlock(&p->mu);
        j->done(j->arg);
        zfree(j);
        j = next;
    }
}

bioPool *bioCreate(struct event_base *base, int threads, const char *name) {
    bioPool *p = zcalloc(sizeof(*p));
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->wake[0] = p->wake[1] = -1;
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) == -1) goto fail;
    p->wake_ev = event_new(base, p->wake[0], EV_READ | EV_PERSIST, bioWake, p);
    if (!p->wake_ev || event_add(p->wake_ev, NULL) == -1) goto fail;
    p->threads = zcalloc(sizeof(pthread_t) * (size_t)threads);
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, bioThreadMain, p) != 0) goto fail;
        pthread_setname_np(p->threads[i], name);
        p->nthreads++;
    }
    return p;
fail:
    bioFree(p, NULL);
    return NULL;
}

int bioThreadCount(bioPool *p) { return p->nthreads; }

pthread_t bioThread(bioPool *p, int i) { return p->threads[i]; }

void bioSubmit(bioPool *p, void (*work)(void *arg), void (*done)(void *arg), void *arg) {
    bioJob *j = zmalloc(sizeof(*j));
    j->work = work;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&p->mu);
    queuePush(&p->todo, j);
    p->pending++;
    pthread_mutex_unlock(&p->mu);
    pthread_cond_signal(&p->cv);
}

unsigned long bioPending(bioPool *p) {
    pthread_mutex_lock(&p->mu);
    unsigned long n = p->pending;
    pthread_mutex_unlock(&p->mu);
    return n;
}

static void dropJobs(bioJob *j, void (*drop)(void *arg)) {
    while (j) {
        bioJob *next = j->next;
        if (drop) drop(j->arg);
        zfree(j);
        j = next;
    }
}

void bioFree(bioPool *p, void (*drop)(void *arg)) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->closing = 1;
    bioJob *queued = queueTakeAll(&p->todo);
    pthread_mutex_unlock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    dropJobs(queued, drop);
    dropJobs(queueTakeAll(&p->finished), drop);
    if (p->wake_ev) event_free(p->wake_ev);
    if (p->wake[0] != -1) close(p->wake[0]);
    if (p->wake[1] != -1) close(p->wake[1]);
    zfree(p->threads);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    zfree(p);
}
