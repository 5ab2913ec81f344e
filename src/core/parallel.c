/* Fork-join over an index range (see parallel.h).
 *
 * Why a pool: a pass over a 4 MP image takes a fraction of a millisecond on
 * 16 threads, about what creating and joining 15 threads costs, and
 * GrabCut's refits, the variational flow's sweeps and the grid's staging
 * run hundreds of such passes. So workers start once, on the first loop
 * that needs them, and sleep on a condition variable between loops. One
 * loop at a time uses them; a loop that finds them busy (another thread's,
 * or a range that runs a loop of its own) starts threads of its own, as
 * every loop did before the pool. A fork()ed child inherits no workers: an
 * atfork handler empties the pool there and the child starts its own. */
#include "core/parallel.h"

#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

/* Below this many items per thread, handing a range to another thread costs
 * more than the work it takes over (microseconds against about a nanosecond
 * an item). */
#define MIN_ITEMS_PER_THREAD 65536

typedef struct range_job {
    gcut__range_fn fn;
    void *arg;
    int64_t begin, end;
    int part;
} range_job;

static void run_job(range_job *j)
{
    j->fn(j->arg, j->begin, j->end, j->part);
}

static void *run_job_thread(void *p)
{
    run_job(p);
    return NULL;
}

/* Worker w runs part w of each loop (part 0 is the caller's). A loop bumps
 * `round`; a worker that has seen every round sleeps. */
static struct {
    pthread_mutex_t busy; /* held by the loop that has the workers */
    pthread_mutex_t lock; /* guards the fields below */
    pthread_cond_t wake, done;
    int workers;
    unsigned long round;
    unsigned long born[GCUT__MAX_THREADS]; /* the round a worker was started in */
    range_job *jobs;
    int parts, left;
} pool = {.busy = PTHREAD_MUTEX_INITIALIZER,
            .lock = PTHREAD_MUTEX_INITIALIZER,
            .wake = PTHREAD_COND_INITIALIZER,
            .done = PTHREAD_COND_INITIALIZER};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In a fork()ed child only the forking thread exists: no workers, and the
 * locks are made new whatever state the parent's threads left them in. */
static void pool_after_fork_child(void)
{
    pthread_mutex_init(&pool.busy, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.workers = 0;
    pool.jobs = NULL;
    pool.parts = pool.left = 0;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork_child);
}

static void *worker_main(void *p)
{
    const int w = (int)(intptr_t)p;
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = pool.born[w];
    for (;;) {
        while (pool.round == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.round;
        if (w >= pool.parts)
            continue; /* not needed this loop */
        range_job *job = &pool.jobs[w];
        pthread_mutex_unlock(&pool.lock);
        run_job(job);
        pthread_mutex_lock(&pool.lock);
        if (--pool.left == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* With `busy` held: parts 1..parts-1 on the workers (started as needed),
 * part 0 on the caller; parts past a worker that could not start run on the
 * caller too. */
static void run_on_pool(range_job *jobs, int parts)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.workers < parts - 1) {
        int w = pool.workers + 1;
        pool.born[w] = pool.round;
        pthread_t tid;
        pthread_attr_t attr;
        int ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            ok = pthread_create(&tid, &attr, worker_main, (void *)(intptr_t)w) == 0;
            pthread_attr_destroy(&attr);
        }
        if (!ok)
            break;
        pool.workers = w;
    }
    const int on_workers = parts - 1 < pool.workers ? parts - 1 : pool.workers;
    pool.jobs = jobs;
    pool.parts = on_workers + 1;
    pool.left = on_workers;
    pool.round++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    run_job(&jobs[0]);
    for (int p = on_workers + 1; p < parts; p++)
        run_job(&jobs[p]);

    pthread_mutex_lock(&pool.lock);
    while (pool.left > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.jobs = NULL;
    pool.parts = 0;
    pthread_mutex_unlock(&pool.lock);
}

/* Threads of this loop's own, joined at its end. */
static void run_on_own_threads(range_job *jobs, int parts)
{
    pthread_t tid[GCUT__MAX_THREADS];
    int started[GCUT__MAX_THREADS] = {0};
    for (int p = 1; p < parts; p++)
        started[p] = pthread_create(&tid[p], NULL, run_job_thread, &jobs[p]) == 0;
    run_job(&jobs[0]);
    for (int p = 1; p < parts; p++) {
        if (started[p])
            pthread_join(tid[p], NULL);
        else
            run_job(&jobs[p]);
    }
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
    for (int p = 0; p < parts; p++) {
        jobs[p].fn = fn;
        jobs[p].arg = arg;
        jobs[p].begin = count * p / parts;
        jobs[p].end = count * (p + 1) / parts;
        jobs[p].part = p;
    }
    if (parts == 1) {
        run_job(&jobs[0]);
        return;
    }
    pthread_once(&atfork_once, register_atfork);
    if (pthread_mutex_trylock(&pool.busy) == 0) {
        run_on_pool(jobs, parts);
        pthread_mutex_unlock(&pool.busy);
    } else {
        run_on_own_threads(jobs, parts);
    }
}
