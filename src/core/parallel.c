/* Fork-join over an index range (see parallel.h). */
#include "core/parallel.h"

#include <pthread.h>
#include <unistd.h>

/* Below this many items per thread, starting a thread costs more than the
 * work it takes over (tens of microseconds against about a nanosecond an
 * item). */
#define MIN_ITEMS_PER_THREAD 65536

typedef struct range_job {
    gcut__range_fn fn;
    void *arg;
    int64_t begin, end;
    int part;
} range_job;

static void *run_job(void *p)
{
    range_job *j = p;
    j->fn(j->arg, j->begin, j->end, j->part);
    return NULL;
}

int gcut__thread_count(int requested, int64_t work)
{
    if (work < 1)
        work = 1;
    if (requested > 0) /* as asked, but never a thread without an item */
        return (int)(requested < work ? requested : work);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > GCUT__MAX_THREADS)
        n = GCUT__MAX_THREADS;
    int64_t useful = work / MIN_ITEMS_PER_THREAD;
    if (useful < 1)
        useful = 1;
    return (int)(n < useful ? n : useful);
}

void gcut__parallel_for(int parts, int64_t count, gcut__range_fn fn, void *arg)
{
    if (parts < 1)
        parts = 1;
    if (parts > GCUT__MAX_THREADS)
        parts = GCUT__MAX_THREADS;
    range_job jobs[GCUT__MAX_THREADS];
    pthread_t tid[GCUT__MAX_THREADS];
    int started[GCUT__MAX_THREADS] = {0};
    for (int p = 0; p < parts; p++) {
        jobs[p].fn = fn;
        jobs[p].arg = arg;
        jobs[p].begin = count * p / parts;
        jobs[p].end = count * (p + 1) / parts;
        jobs[p].part = p;
    }
    for (int p = 1; p < parts; p++)
        started[p] = pthread_create(&tid[p], NULL, run_job, &jobs[p]) == 0;
    run_job(&jobs[0]);
    for (int p = 1; p < parts; p++) {
        if (started[p])
            pthread_join(tid[p], NULL);
        else
            run_job(&jobs[p]);
    }
}
