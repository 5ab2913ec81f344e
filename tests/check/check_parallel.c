/* See check_parallel.h. */
#include "check_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_rng.h"
#include "core/parallel.h"

typedef struct visit {
    int parts;
    int64_t count;
    uint32_t *seen;   /* visits per index */
    int8_t *part_of; /* the part that visited it */
    int bad_range;   /* a range that is not the part's share */
} visit;

static void mark(void *arg, int64_t begin, int64_t end, int part)
{
    visit *v = arg;
    if (begin != v->count * part / v->parts || end != v->count * (part + 1) / v->parts)
        __atomic_store_n(&v->bad_range, 1, __ATOMIC_RELAXED);
    for (int64_t i = begin; i < end; i++) {
        __atomic_add_fetch(&v->seen[i], 1, __ATOMIC_RELAXED);
        v->part_of[i] = (int8_t)part;
    }
}

/* One loop of `parts` over `count` items; 0 if every index was visited
 * once by its part. */
static int one_loop(int parts, int64_t count)
{
    visit v = {parts, count, calloc((size_t)count + 1, sizeof(uint32_t)),
               calloc((size_t)count + 1, 1), 0};
    int ok = v.seen && v.part_of;
    if (ok) {
        gcut__parallel_for(parts, count, mark, &v);
        ok = !v.bad_range;
        for (int64_t i = 0; i < count && ok; i++)
            ok = v.seen[i] == 1 && count * v.part_of[i] / parts <= i &&
                 i < count * (v.part_of[i] + 1) / parts;
    }
    free(v.seen);
    free(v.part_of);
    return ok ? 0 : -1;
}

typedef struct loops_job {
    uint64_t seed;
    int loops, failed;
} loops_job;

static void *run_loops(void *arg)
{
    loops_job *j = arg;
    rng g = {j->seed};
    for (int k = 0; k < j->loops; k++)
        j->failed |= one_loop((int)rng_range(&g, 1, 16), rng_range(&g, 0, 20000));
    return NULL;
}

static void nested_range(void *arg, int64_t begin, int64_t end, int part)
{
    int *failed = arg;
    (void)part;
    for (int64_t i = begin; i < end; i++)
        if (one_loop(3, 1000 + i))
            __atomic_store_n(failed, 1, __ATOMIC_RELAXED);
}

void check_parallel_for(check_report *r, int count, uint64_t seed)
{
    rng g = {seed ^ 0x5eed9a11e1ULL};
    for (int k = 0; k < count; k++) {
        int parts = (int)rng_range(&g, 1, GCUT__MAX_THREADS);
        int64_t items = rng_below(&g, 8) == 0 ? rng_below(&g, parts + 1) : rng_range(&g, 0, 100000);
        if (one_loop(parts, items)) {
            check_fail(r, "parallel_for: %d parts over %lld items missed or repeated an index",
                       parts, (long long)items);
            return;
        }
        r->passed++;
    }

    /* Four callers at once: at most one has the pool. */
    pthread_t tid[4];
    loops_job jobs[4];
    int started[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (loops_job){seed + 17u * (uint64_t)t + 1, count < 5 ? 5 : count, 0};
        started[t] = pthread_create(&tid[t], NULL, run_loops, &jobs[t]) == 0;
    }
    int failed = 0;
    for (int t = 0; t < 4; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_loops(&jobs[t]);
        failed |= jobs[t].failed;
    }
    if (failed)
        check_fail(r, "parallel_for: loops from four threads at once went wrong");
    else
        r->passed++;

    /* A loop inside each range of another. */
    int nested_failed = 0;
    gcut__parallel_for(4, 12, nested_range, &nested_failed);
    if (nested_failed)
        check_fail(r, "parallel_for: a loop inside a loop's range went wrong");
    else
        r->passed++;

    /* A child of a process whose pool has workers makes its own. */
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        for (int k = 0; k < 20; k++)
            bad |= one_loop(8, 5000 + k);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        check_fail(r, "parallel_for: loops in a forked child went wrong");
    else
        r->passed++;
}
