/* main.c -- casq's C unit test runner.
 *
 *   build/release/tests/unit-tests [--no-fork] [--list] [suite ...]
 *
 * Every tests/unit/test_<name>.c defines `int test_<name>(void)` returning
 * its number of failed assertions. The Makefile lists the files it finds in
 * UNIT_SUITES (build/<variant>/tests/unit_suites.h), so a new test file is
 * picked up without editing this runner.
 *
 * Each suite runs in a child process of its own (unless --no-fork, handy
 * under gdb), so a crash or an abort in one suite is reported as that
 * suite's failure and the others still run, each starting from a fresh
 * process. Prints one line per suite and, last, `N passed, N failed`
 * (suites). Exits 1 if any suite failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit_suites.h"

/* src/config.c: the defaults main() starts from. */
void initServerConfig(void);

#define X(name) int test_##name(void);
UNIT_SUITES
#undef X

typedef struct unitSuite {
    const char *name;  /* the <name> of test_<name> */
    int (*fn)(void);   /* returns failed assertions */
} unitSuite;

static const unitSuite suites[] = {
#define X(name) {#name, test_##name},
    UNIT_SUITES
#undef X
    {NULL, NULL},
};

static long long nowMs(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static int selected(const char *name, int argc, char **argv, int first) {
    if (first >= argc) return 1;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], name)) return 1;
    return 0;
}

/* Runs one suite; returns its failure count, or -1 if it crashed. */
static int runSuite(const unitSuite *s, int fork_it, char *why, size_t whylen) {
    why[0] = '\0';
    if (!fork_it) {
        initServerConfig();
        return s->fn();
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == -1) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        initServerConfig();
        int failed = s->fn();
        fflush(stdout);
        _exit(failed > 250 ? 250 : failed);
    }
    int status;
    while (waitpid(pid, &status, 0) == -1) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    snprintf(why, whylen, "killed by signal %d", WTERMSIG(status));
    return -1;
}

int main(int argc, char **argv) {
    int fork_it = 1, first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "--no-fork")) {
            fork_it = 0;
        } else if (!strcmp(argv[first], "--list")) {
            for (const unitSuite *s = suites; s->name; s++) printf("%s\n", s->name);
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--no-fork] [--list] [suite ...]\n", argv[0]);
            return 2;
        }
        first++;
    }
    for (int i = first; i < argc; i++) {
        int found = 0;
        for (const unitSuite *s = suites; s->name; s++) found |= !strcmp(s->name, argv[i]);
        if (!found) {
            fprintf(stderr, "no such suite: %s (try --list)\n", argv[i]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    int passed = 0, failed = 0;
    for (const unitSuite *s = suites; s->name; s++) {
        if (!selected(s->name, argc, argv, first)) continue;
        char why[64];
        printf("=== unit/%s\n", s->name);
        long long start = nowMs();
        int f = runSuite(s, fork_it, why, sizeof(why));
        long long ms = nowMs() - start;
        if (f == 0) {
            passed++;
            printf("[ok]: unit/%s (%lld ms)\n", s->name, ms);
        } else {
            failed++;
            if (f < 0) printf("[err]: unit/%s: %s (%lld ms)\n", s->name, why, ms);
            else printf("[err]: unit/%s: %d failed assertion%s (%lld ms)\n", s->name, f, f == 1 ? "" : "s", ms);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
