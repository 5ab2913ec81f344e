/* The context's pinned staging pool (staging.h): pinned slots, two a
 * thread; each thread takes the next chunk of rows, copies it into a free
 * slot of its own in the device's layout (the device pitch, its margin
 * zeroed) and queues it as one contiguous copy, so the copy engine always
 * has chunks queued while the threads fill the next ones. Kept in the
 * context (ctx->stage_pool) for all its later transfers, whichever GPU
 * path asks. */
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/parallel.h" /* a C header without C++ guards */
}
#include "gpu/staging.h"

/* The staging pool's threads, at most: enough that their copies between
 * pageable and pinned memory (5 to 10 GB/s a core) outrun the link. */
#define POOL_THREADS GCUT__STAGE_THREADS_MAX

/* A chunk's bytes, at most: large enough that a copy's fixed cost (a few
 * microseconds) is small against its transfer (about 20 us at 50 GB/s),
 * small enough that the ring (24 slots) pins less than a process's first
 * solve would otherwise pay for: pinning costs about as much as copying. */
#define CHUNK_MAX ((size_t)1 << 20)

/* and at least, unless the transfer is smaller. */
#define CHUNK_MIN ((size_t)64 << 10)

/* ---- the staging pool ---------------------------------------------------- */

typedef struct stage_pool {
    int device;
    unsigned char *ring; /* 2 slots a thread, slot_bytes each */
    size_t slot_bytes;
    cudaEvent_t copied[2 * POOL_THREADS]; /* the slot's last copy is done */
    cudaEvent_t mark[2];                  /* the stream before and after an upload's copies */
    cudaEvent_t done;                     /* the last transfer's copies are done */
    void *kept[GCUT__KEEP_SLOTS];         /* gcut__stage_keep */
    void (*kept_free[GCUT__KEEP_SLOTS])(void *);
} stage_pool;

static void pool_free(void *p)
{
    stage_pool *pool = (stage_pool *)p;
    if (!pool)
        return;
    cudaSetDevice(pool->device);
    cudaEventSynchronize(pool->done); /* no copy still reads the ring */
    for (int k = 0; k < GCUT__KEEP_SLOTS; k++)
        if (pool->kept[k])
            pool->kept_free[k](pool->kept[k]);
    for (int k = 0; k < 2 * POOL_THREADS; k++)
        cudaEventDestroy(pool->copied[k]);
    cudaEventDestroy(pool->mark[0]);
    cudaEventDestroy(pool->mark[1]);
    cudaEventDestroy(pool->done);
    cudaFreeHost(pool->ring);
    cudaGetLastError();
    free(pool);
}

/* The context's pool, its ring of at least `slot_bytes` a slot (grown,
 * never shrunk: a grid of the same or a smaller size pins nothing). */
static gcut_status pool_get(gcut_context *ctx, gcut__gpu *s, size_t slot_bytes, stage_pool **out)
{
    gcut_status st = GCUT_OK;
    stage_pool *pool = (stage_pool *)ctx->stage_pool;
    if (!pool) {
        pool = (stage_pool *)calloc(1, sizeof *pool);
        if (!pool)
            return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for the staging pool");
        pool->device = s->device;
        cudaEvent_t *events[2 * POOL_THREADS + 3];
        int n = 0, made = 0;
        for (int k = 0; k < 2 * POOL_THREADS; k++)
            events[n++] = &pool->copied[k];
        events[n++] = &pool->done;
        events[n++] = &pool->mark[0]; /* the marks time: the last two */
        events[n++] = &pool->mark[1];
        cudaError_t err = cudaSuccess;
        while (made < n && (err = cudaEventCreateWithFlags(
                                events[made], made < n - 2 ? cudaEventDisableTiming
                                                           : cudaEventDefault)) == cudaSuccess)
            made++;
        if (err == cudaSuccess)
            err = cudaEventRecord(pool->done, s->stream);
        if (err != cudaSuccess) {
            for (int k = 0; k < made; k++)
                cudaEventDestroy(*events[k]);
            free(pool);
            return gcut__gpu_fail(ctx, err, "cudaEventCreateWithFlags(staging pool)", __FILE__,
                                  __LINE__);
        }
        ctx->stage_pool = pool;
        ctx->stage_pool_free = pool_free;
    }
    if (slot_bytes > pool->slot_bytes) {
        GPU_CHECK(ctx, cudaEventSynchronize(pool->done));
        cudaFreeHost(pool->ring);
        pool->ring = NULL;
        pool->slot_bytes = 0;
        GPU_CHECK(ctx, cudaMallocHost((void **)&pool->ring, 2 * POOL_THREADS * slot_bytes));
        pool->slot_bytes = slot_bytes;
    }
    *out = pool;
fail:
    return st;
}

/* A chunk: rows [row0, row0 + rows) of one array. */
typedef struct stage_chunk {
    int array;
    size_t row0, rows;
} stage_chunk;

/* One transfer, shared by its threads. */
typedef struct stage_job {
    stage_pool *pool;
    cudaStream_t stream;
    int up; /* 1: host -> device */
    const gcut__xfer_array *a;
    const stage_chunk *chunk;
    int chunks;
    int next;   /* the next chunk to take (atomic) */
    int failed; /* set once (atomic), with the failure below */
    cudaError_t err;
    const char *call;
    int line;
    gcut__stage_scan_fn scan; /* up only: each staged chunk, or NULL */
    void *scan_arg;
    double copy_ms[POOL_THREADS], wait_ms[POOL_THREADS];
} stage_job;

static int job_check(stage_job *j, cudaError_t err, const char *call, int line)
{
    if (err == cudaSuccess)
        return 0;
    int expected = 0;
    if (__atomic_compare_exchange_n(&j->failed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        j->err = err;
        j->call = call;
        j->line = line;
    }
    return 1;
}
#define JOB_CHECK(j, call) job_check((j), (call), #call, __LINE__)

/* The chunk's rows between the host array and `slot`, in the device's
 * layout; on the way up the margin right of the host's row is zeroed. */
static void chunk_copy(const stage_job *j, const stage_chunk *c, unsigned char *slot)
{
    const gcut__xfer_array *x = &j->a[c->array];
    unsigned char *host = x->host + c->row0 * x->row_bytes;
    if (x->row_bytes == x->dev_pitch) {
        if (j->up)
            memcpy(slot, host, c->rows * x->row_bytes);
        else
            memcpy(host, slot, c->rows * x->row_bytes);
        return;
    }
    for (size_t r = 0; r < c->rows; r++) {
        unsigned char *dev_row = slot + r * x->dev_pitch, *host_row = host + r * x->row_bytes;
        if (j->up) {
            memcpy(dev_row, host_row, x->row_bytes);
            memset(dev_row + x->row_bytes, 0, x->dev_pitch - x->row_bytes);
        } else {
            memcpy(host_row, dev_row, x->row_bytes);
        }
    }
}

static cudaError_t chunk_queue(const stage_job *j, const stage_chunk *c, unsigned char *slot)
{
    const gcut__xfer_array *x = &j->a[c->array];
    unsigned char *dev = x->dev + c->row0 * x->dev_pitch;
    const size_t bytes = c->rows * x->dev_pitch;
    return j->up ? cudaMemcpyAsync(dev, slot, bytes, cudaMemcpyHostToDevice, j->stream)
                 : cudaMemcpyAsync(slot, dev, bytes, cudaMemcpyDeviceToHost, j->stream);
}

/* Thread `part`: chunks taken in turn until none is left, through its two
 * slots. Up: wait for the slot's last copy, fill it, queue its copy. Down:
 * queue chunk k's copy, then empty chunk k - 1's slot while it runs. */
static void stage_thread(void *arg, int64_t begin, int64_t end, int part)
{
    (void)begin, (void)end;
    stage_job *j = (stage_job *)arg;
    stage_pool *pool = j->pool;
    double copy_ms = 0, wait_ms = 0;
    int k = 0, pending = -1; /* pending: a chunk queued down, not yet emptied */
    int pending_slot = 0;
    if (JOB_CHECK(j, cudaSetDevice(pool->device)))
        return;
    for (;;) {
        const int c = __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE)
                          ? j->chunks
                          : __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        const int slot = 2 * part + (k & 1);
        unsigned char *buf = pool->ring + (size_t)slot * pool->slot_bytes;
        if (c < j->chunks) {
            if (j->up) {
                double t0 = gcut__now_ms();
                if (k >= 2 && JOB_CHECK(j, cudaEventSynchronize(pool->copied[slot])))
                    break;
                double t1 = gcut__now_ms();
                chunk_copy(j, &j->chunk[c], buf);
                wait_ms += t1 - t0;
                copy_ms += gcut__now_ms() - t1;
            }
            if (JOB_CHECK(j, chunk_queue(j, &j->chunk[c], buf)) ||
                JOB_CHECK(j, cudaEventRecord(pool->copied[slot], j->stream)))
                break;
            if (j->scan) { /* behind the chunk's copy: the link does not wait for it */
                const double t0 = gcut__now_ms();
                const stage_chunk *ch = &j->chunk[c];
                const gcut__xfer_array *x = &j->a[ch->array];
                j->scan(j->scan_arg, x->host + ch->row0 * x->row_bytes, buf,
                        ch->rows * x->row_bytes, part);
                copy_ms += gcut__now_ms() - t0;
            }
        }
        if (pending >= 0) {
            double t0 = gcut__now_ms();
            if (JOB_CHECK(j, cudaEventSynchronize(pool->copied[pending_slot])))
                break;
            double t1 = gcut__now_ms();
            chunk_copy(j, &j->chunk[pending], pool->ring + (size_t)pending_slot * pool->slot_bytes);
            wait_ms += t1 - t0;
            copy_ms += gcut__now_ms() - t1;
            pending = -1;
        }
        if (c >= j->chunks)
            break;
        if (!j->up) {
            pending = c;
            pending_slot = slot;
        }
        k++;
    }
    j->copy_ms[part] = copy_ms;
    j->wait_ms[part] = wait_ms;
}

/* Rows of a chunk of array `x` holding about `bytes`: at least one. */
static size_t chunk_rows(const gcut__xfer_array *x, size_t bytes)
{
    const size_t r = bytes / x->dev_pitch;
    return r > 0 ? r : 1;
}

/* Down in one piece, when the arrays fit in the ring at once: one copy
 * each on the stream, one wait, then the threads empty the ring row range
 * by row range. Why: cut in chunks, a small download (the labels) paid a
 * copy, an event and a wait per chunk, 1.5 ms for the 8 MB of an 8.3 MP
 * grid's labels, where the link needs 0.15 ms. */
typedef struct ring_out {
    const gcut__xfer_array *a;
    int n;
    const unsigned char *ring;
    const size_t *offset; /* array k's first byte in the ring */
    const int64_t *first; /* array k's first line of all the arrays' rows */
} ring_out;

static void ring_out_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const ring_out *o = (const ring_out *)arg;
    int k = 0;
    for (int64_t i = begin; i < end; i++) {
        while (k + 1 < o->n && i >= o->first[k + 1])
            k++;
        const size_t r = (size_t)(i - o->first[k]);
        const gcut__xfer_array *x = &o->a[k];
        memcpy(x->host + r * x->row_bytes, o->ring + o->offset[k] + r * x->dev_pitch,
               x->row_bytes);
    }
}

static gcut_status ring_down(gcut_context *ctx, gcut__gpu *s, const gcut__xfer_array *a, int n,
                             size_t total, int threads)
{
    gcut_status st = GCUT_OK;
    stage_pool *pool = NULL;
    size_t offset[GCUT__STAGE_ARRAYS_MAX];
    int64_t first[GCUT__STAGE_ARRAYS_MAX], lines = 0;
    if ((st = pool_get(ctx, s, (total + 2 * POOL_THREADS - 1) / (2 * POOL_THREADS), &pool)))
        return st;
    GPU_CHECK(ctx, cudaEventSynchronize(pool->done)); /* the ring is free */
    {
        size_t at = 0;
        for (int k = 0; k < n; k++) {
            offset[k] = at;
            first[k] = lines;
            lines += (int64_t)a[k].rows;
            if (a[k].rows)
                GPU_CHECK(ctx, cudaMemcpyAsync(pool->ring + at, a[k].dev,
                                               a[k].rows * a[k].dev_pitch,
                                               cudaMemcpyDeviceToHost, s->stream));
            at += a[k].rows * a[k].dev_pitch;
        }
    }
    GPU_CHECK(ctx, cudaEventRecord(pool->done, s->stream));
    GPU_CHECK(ctx, cudaEventSynchronize(pool->done));
    if (lines > 0) {
        const ring_out o = {a, n, pool->ring, offset, first};
        gcut__parallel_for(threads < lines ? threads : (int)lines, lines, ring_out_rows,
                           (void *)&o);
    }
fail:
    return st;
}

/* gcut__stage_transfer's work; scan (up only) as gcut__stage_upload_scan. */
static gcut_status stage_transfer(gcut_context *ctx, gcut__gpu *s, const gcut__xfer_array *a,
                                  int n, int up, gcut__stage_scan_fn scan, void *scan_arg)
{
    gcut_status st = GCUT_OK;
    stage_chunk *chunk = NULL;
    stage_pool *pool = NULL;
    size_t total = 0, widest = 0;
    for (int k = 0; k < n; k++) {
        total += a[k].rows * a[k].dev_pitch;
        widest = a[k].dev_pitch > widest ? a[k].dev_pitch : widest;
    }
    int threads = gcut__thread_count(ctx->options.threads, INT64_MAX);
    threads = threads < POOL_THREADS ? threads : POOL_THREADS;
    if (n < 1 || n > GCUT__STAGE_ARRAYS_MAX)
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: a transfer of %d arrays", n);
    if (total == 0)
        return GCUT_OK;
    if (!up) {
        const stage_pool *have = (const stage_pool *)ctx->stage_pool;
        const size_t ring = 2 * POOL_THREADS * (have && have->slot_bytes > CHUNK_MAX
                                                    ? have->slot_bytes
                                                    : CHUNK_MAX);
        if (total <= ring)
            return ring_down(ctx, s, a, n, total, threads);
    }
    /* Chunks: about total / (4 threads) each within [CHUNK_MIN, CHUNK_MAX],
     * the first round a quarter of that, so that the copy engine starts
     * early; each thread takes several, so that none waits long at the end. */
    size_t big = total / (4 * (size_t)threads);
    big = big < CHUNK_MIN ? CHUNK_MIN : big > CHUNK_MAX ? CHUNK_MAX : big;
    const size_t small = big / 4;
    int chunks = 0;
    for (int k = 0; k < n; k++)
        chunks += (int)((a[k].rows + chunk_rows(&a[k], small) - 1) / chunk_rows(&a[k], small));
    chunk = (stage_chunk *)malloc((size_t)chunks * sizeof *chunk);
    if (!chunk)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for a transfer's plan");
    chunks = 0;
    for (int k = 0; k < n; k++)
        for (size_t row = 0; row < a[k].rows;) {
            const size_t want = chunk_rows(&a[k], chunks < threads ? small : big);
            const size_t take = want < a[k].rows - row ? want : a[k].rows - row;
            chunk[chunks++] = {k, row, take};
            row += take;
        }
    threads = threads < chunks ? threads : chunks;
    if ((st = pool_get(ctx, s, big > widest ? big : widest, &pool)))
        goto fail;
    GPU_CHECK(ctx, cudaEventSynchronize(pool->done)); /* the ring is free */
    {
        stage_job j;
        memset(&j, 0, sizeof j);
        j.pool = pool;
        j.stream = s->stream;
        j.up = up;
        j.a = a;
        j.chunk = chunk;
        j.chunks = chunks;
        j.scan = up ? scan : NULL;
        j.scan_arg = scan_arg;
        if (up)
            GPU_CHECK(ctx, cudaEventRecord(pool->mark[0], s->stream));
        gcut__parallel_for(threads, threads, stage_thread, &j);
        GPU_CHECK(ctx, cudaSetDevice(s->device)); /* the calling thread's device, as it was */
        if (j.failed) {
            st = gcut__gpu_fail(ctx, j.err, j.call, __FILE__, j.line);
            cudaStreamSynchronize(s->stream);
            goto fail;
        }
        if (up) {
            GPU_CHECK(ctx, cudaEventRecord(pool->mark[1], s->stream));
            gcut__gpu_xfer_trace *t = &s->xfer_trace;
            t->copy_ms = t->wait_ms = 0;
            for (int k = 0; k < threads; k++) {
                t->copy_ms += j.copy_ms[k];
                t->wait_ms += j.wait_ms[k];
            }
            t->up_bytes = (long long)total;
            t->chunks = chunks;
            t->workers = threads;
            t->timed = 1;
        }
        GPU_CHECK(ctx, cudaEventRecord(pool->done, s->stream));
    }
fail:
    free(chunk);
    return st;
}

gcut_status gcut__stage_transfer(gcut_context *ctx, gcut__gpu *s, const gcut__xfer_array *a,
                                 int n, int up)
{
    return stage_transfer(ctx, s, a, n, up, NULL, NULL);
}

/* A contiguous upload's rows: small enough that the first chunks (a
 * quarter of the others) start the copy engine early. */
#define FLAT_ROW ((size_t)16 << 10)

gcut_status gcut__stage_upload_scan(gcut_context *ctx, gcut__gpu *s, void *dev, const void *host,
                                    size_t bytes, gcut__stage_scan_fn scan, void *arg)
{
    unsigned char *h = (unsigned char *)host, *d = (unsigned char *)dev;
    const size_t rows = bytes / FLAT_ROW, tail = bytes % FLAT_ROW;
    gcut__xfer_array a[2];
    int n = 0;
    if (rows)
        a[n++] = {h, d, FLAT_ROW, FLAT_ROW, rows};
    if (tail)
        a[n++] = {h + rows * FLAT_ROW, d + rows * FLAT_ROW, tail, tail, 1};
    return n ? stage_transfer(ctx, s, a, n, 1, scan, arg) : GCUT_OK;
}

gcut_status gcut__stage_upload(gcut_context *ctx, gcut__gpu *s, void *dev, const void *host,
                               size_t bytes)
{
    return gcut__stage_upload_scan(ctx, s, dev, host, bytes, NULL, NULL);
}

gcut_status gcut__stage_upload_span_ms(gcut_context *ctx, float *ms)
{
    const stage_pool *pool = (const stage_pool *)ctx->stage_pool;
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!pool || !s || !s->xfer_trace.timed)
        return GCUT_E_STATE;
    if (cudaEventElapsedTime(ms, pool->mark[0], pool->mark[1]) != cudaSuccess) {
        cudaGetLastError();
        return GCUT_E_STATE;
    }
    return GCUT_OK;
}

void *gcut__stage_kept(gcut_context *ctx, int slot)
{
    const stage_pool *pool = (const stage_pool *)ctx->stage_pool;
    return pool && slot >= 0 && slot < GCUT__KEEP_SLOTS ? pool->kept[slot] : NULL;
}

gcut_status gcut__stage_keep(gcut_context *ctx, gcut__gpu *s, int slot, void *obj,
                             void (*free_fn)(void *))
{
    stage_pool *pool = NULL;
    if (slot < 0 || slot >= GCUT__KEEP_SLOTS)
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: no keep slot %d", slot);
    gcut_status st = pool_get(ctx, s, 0, &pool);
    if (st)
        return st;
    pool->kept[slot] = obj;
    pool->kept_free[slot] = free_fn;
    return GCUT_OK;
}
