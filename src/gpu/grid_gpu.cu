/* Host side of the GPU grid solvers: the device buffers kept in the
 * context (grown on demand, reused), moving a grid to the device and its
 * solution back, and the entry points. The solve loop is in
 * grid_gpu_run.cu, the kernels in grid_kernels/.
 *
 * What a solve moves: the capacities up ((ndirs + 2) int32 a node) and one
 * label byte a node down, computed on the device from the final heights.
 * The residuals stay on the device (s->res_owner) until something asks for
 * them (gcut_grid_verify(), or another grid about to take the buffers):
 * most callers want the cut alone. Transfers go through the context's
 * staging pool: pinned slots, two a thread; each thread takes the next
 * chunk of rows, copies it into a free slot of its own in the device's
 * layout (the device pitch, its margin zeroed) and queues it as one
 * contiguous copy, so the copy engine always has chunks queued while the
 * threads fill the next ones. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/parallel.h" /* a C header without C++ guards */
}
#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

#define THREADS 256

/* The staging pool's threads, at most: enough that their copies between
 * pageable and pinned memory (5 to 10 GB/s a core) outrun the link. */
#define POOL_THREADS 12

/* A chunk's bytes, at most: large enough that a copy's fixed cost (a few
 * microseconds) is small against its transfer (about 20 us at 50 GB/s),
 * small enough that the ring (24 slots) pins less than a process's first
 * solve would otherwise pay for: pinning costs about as much as copying. */
#define CHUNK_MAX ((size_t)1 << 20)

/* and at least, unless the transfer is smaller. */
#define CHUNK_MIN ((size_t)64 << 10)

/* Slots of the relabel's tile queue: more than the tiles, so that a
 * producer hardly ever waits for a slot to be taken. */
static size_t queue_slots(size_t tiles)
{
    return 4 * tiles + 16384; /* a run queues at most 9 tiles, and 528 blocks run at once */
}

static size_t grid_bytes(size_t nodes, int ndirs, size_t tiles)
{
    return nodes * sizeof(int32_t) * (size_t)(ndirs + 3) + 2 * nodes * sizeof(uint8_t) +
           7 * tiles * sizeof(int32_t) + queue_slots(tiles) * sizeof(unsigned long long) +
           GCUT_CNT_SLOTS * sizeof(unsigned long long);
}

/* E W S N NE SW SE NW, as gcut_dir. */
static __device__ __forceinline__ int step_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int step_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

/* The first pixel (row-major) whose capacities, terminals and arcs out and
 * in, add up past INT32_MAX (gcut__grid_check_overflow's rule, on the
 * uploaded graph; the setters refuse negative values), into *first. */
static __global__ void overflow_kernel(gcut__dgrid g, unsigned long long *first)
{
    const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (p >= (long long)g.img_w * g.img_h)
        return;
    const int x = (int)(p % g.img_w), y = (int)(p / g.img_w);
    const long long i = (long long)(y + 1) * g.pitch + x + 1;
    long long total = (long long)g.excess[i] + g.sink[i];
    for (int d = 0; d < g.ndirs; d++)
        total += (long long)g.res[d][i] + g.res[d ^ 1][i + step_dx(d) + step_dy(d) * g.pitch];
    if (total > INT_MAX)
        atomicMin(first, (unsigned long long)p);
}

/* labels over the host's padded raster (pitch img_w + 2, the ring 0):
 * 1 = the pixel cannot reach the sink (infinite height after the run's
 * last, exact global relabel). */
static __global__ void labels_kernel(gcut__dgrid g, uint8_t *labels)
{
    const long long host_pitch = g.img_w + 2;
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= host_pitch * (g.img_h + 2))
        return;
    const int x = (int)(i % host_pitch) - 1, y = (int)(i / host_pitch) - 1;
    const int pixel = x >= 0 && x < g.img_w && y >= 0 && y < g.img_h;
    labels[i] = pixel && g.height[(long long)(y + 1) * g.pitch + x + 1] >= GCUT_HEIGHT_INF;
}

static unsigned blocks_for(long long n)
{
    long long b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b > 0 ? b : 1);
}

/* One array of a transfer: `rows` rows of row_bytes on the host (packed),
 * rows dev_pitch bytes apart on the device. */
typedef struct xfer_array {
    unsigned char *host;
    unsigned char *dev;
    size_t row_bytes, dev_pitch;
} xfer_array;

/* ---- the staging pool ---------------------------------------------------- */

typedef struct stage_pool {
    int device;
    unsigned char *ring; /* 2 slots a thread, slot_bytes each */
    size_t slot_bytes;
    cudaEvent_t copied[2 * POOL_THREADS]; /* the slot's last copy is done */
    cudaEvent_t mark[2];                  /* the stream before and after an upload's copies */
    cudaEvent_t done;                     /* the last transfer's copies are done */
} stage_pool;

static void pool_free(void *p)
{
    stage_pool *pool = (stage_pool *)p;
    if (!pool)
        return;
    cudaSetDevice(pool->device);
    cudaEventSynchronize(pool->done); /* no copy still reads the ring */
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
    const xfer_array *a;
    const stage_chunk *chunk;
    int chunks;
    int next;   /* the next chunk to take (atomic) */
    int failed; /* set once (atomic), with the failure below */
    cudaError_t err;
    const char *call;
    int line;
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
    const xfer_array *x = &j->a[c->array];
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
    const xfer_array *x = &j->a[c->array];
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
static size_t chunk_rows(const xfer_array *x, size_t bytes)
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
    const xfer_array *a;
    size_t rows;
    const unsigned char *ring;
    const size_t *offset; /* array k's first byte in the ring */
} ring_out;

static void ring_out_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const ring_out *o = (const ring_out *)arg;
    for (int64_t i = begin; i < end; i++) {
        const size_t k = (size_t)i / o->rows, r = (size_t)i % o->rows;
        const xfer_array *x = &o->a[k];
        memcpy(x->host + r * x->row_bytes, o->ring + o->offset[k] + r * x->dev_pitch,
               x->row_bytes);
    }
}

static gcut_status ring_down(gcut_context *ctx, gcut__gpu *s, const xfer_array *a, int n,
                             size_t rows, size_t total, int threads)
{
    gcut_status st = GCUT_OK;
    stage_pool *pool = NULL;
    size_t offset[GCUT__MAX_DIRS];
    if ((st = pool_get(ctx, s, (total + 2 * POOL_THREADS - 1) / (2 * POOL_THREADS), &pool)))
        return st;
    GPU_CHECK(ctx, cudaEventSynchronize(pool->done)); /* the ring is free */
    {
        size_t at = 0;
        for (int k = 0; k < n; k++) {
            offset[k] = at;
            GPU_CHECK(ctx, cudaMemcpyAsync(pool->ring + at, a[k].dev, rows * a[k].dev_pitch,
                                           cudaMemcpyDeviceToHost, s->stream));
            at += rows * a[k].dev_pitch;
        }
    }
    GPU_CHECK(ctx, cudaEventRecord(pool->done, s->stream));
    GPU_CHECK(ctx, cudaEventSynchronize(pool->done));
    {
        const ring_out o = {a, rows, pool->ring, offset};
        const int64_t lines = (int64_t)n * (int64_t)rows;
        gcut__parallel_for(threads < lines ? threads : (int)lines, lines, ring_out_rows,
                           (void *)&o);
    }
fail:
    return st;
}

/* Host <-> device through the pool: n arrays of `rows` rows each. Up:
 * returns with the copies queued on the stream; down: done on return. */
static gcut_status stage_transfer(gcut_context *ctx, gcut__gpu *s, const xfer_array *a, int n,
                                  size_t rows, int up)
{
    gcut_status st = GCUT_OK;
    stage_chunk *chunk = NULL;
    stage_pool *pool = NULL;
    size_t total = 0, widest = 0;
    for (int k = 0; k < n; k++) {
        total += rows * a[k].dev_pitch;
        widest = a[k].dev_pitch > widest ? a[k].dev_pitch : widest;
    }
    int threads = gcut__thread_count(ctx->options.threads, INT64_MAX);
    threads = threads < POOL_THREADS ? threads : POOL_THREADS;
    if (!up && n <= GCUT__MAX_DIRS) {
        const stage_pool *have = (const stage_pool *)ctx->stage_pool;
        const size_t ring = 2 * POOL_THREADS * (have && have->slot_bytes > CHUNK_MAX
                                                    ? have->slot_bytes
                                                    : CHUNK_MAX);
        if (total <= ring)
            return ring_down(ctx, s, a, n, rows, total, threads);
    }
    /* Chunks: about total / (4 threads) each within [CHUNK_MIN, CHUNK_MAX],
     * the first round a quarter of that, so that the copy engine starts
     * early; each thread takes several, so that none waits long at the end. */
    size_t big = total / (4 * (size_t)threads);
    big = big < CHUNK_MIN ? CHUNK_MIN : big > CHUNK_MAX ? CHUNK_MAX : big;
    const size_t small = big / 4;
    int chunks = 0;
    for (int k = 0; k < n; k++)
        chunks += (int)((rows + chunk_rows(&a[k], small) - 1) / chunk_rows(&a[k], small));
    chunk = (stage_chunk *)malloc((size_t)chunks * sizeof *chunk);
    if (!chunk)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for a transfer's plan");
    chunks = 0;
    for (int k = 0; k < n; k++)
        for (size_t row = 0; row < rows;) {
            const size_t want = chunk_rows(&a[k], chunks < threads ? small : big);
            const size_t take = want < rows - row ? want : rows - row;
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

/* Host -> device, `g`'s arrays; returns with the copies queued. */
static gcut_status xfer_up(gcut_grid *g, gcut__gpu *s, const xfer_array *a, int n, size_t rows)
{
    return stage_transfer(g->ctx, s, a, n, rows, 1);
}

/* Device -> host, `g`'s arrays; done on return. */
static gcut_status xfer_down(gcut_grid *g, gcut__gpu *s, const xfer_array *a, int n,
                             size_t rows)
{
    return stage_transfer(g->ctx, s, a, n, rows, 0);
}

/* The grid's residual arrays as a transfer (the device's from `s`). */
static int residual_arrays(gcut_grid *g, gcut__gpu *s, xfer_array *a)
{
    const size_t row = (size_t)g->pitch * sizeof(int32_t);
    const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
    for (int d = 0; d < g->ndirs; d++)
        a[d] = {(unsigned char *)g->res[d], (unsigned char *)s->dg.res[d], row, dev_pitch};
    return g->ndirs;
}

/* ---- whose graph the device buffers hold ------------------------------ */

gcut_status gcut__gpu_grid_save_residuals(gcut_context *ctx, gcut__gpu *s)
{
    gcut_grid *owner = (gcut_grid *)s->res_owner;
    if (!owner)
        return GCUT_OK;
    s->res_owner = NULL;
    owner->res_on_device = 0;
    gcut_status st = gcut__grid_alloc_solution(owner); /* owner->ctx is ctx */
    xfer_array a[GCUT__MAX_DIRS];
    const int n = residual_arrays(owner, s, a);
    if (!st)
        st = xfer_down(owner, s, a, n, (size_t)owner->height + 2);
    (void)ctx;
    if (st)
        owner->solved = 0; /* its proof is gone: verify says so, never reads stale arrays */
    return st;
}

/* The device buffers are about to be written for `g`: another grid's
 * residuals still there go to its host arrays first. */
static gcut_status claim(gcut_grid *g, gcut__gpu *s)
{
    if (s->res_owner && s->res_owner != g)
        return gcut__gpu_grid_save_residuals(g->ctx, s);
    s->res_owner = NULL;
    return GCUT_OK;
}

/* Make the device buffers fit `g` (grow only); another grid's residuals
 * still there are saved first. */
static gcut_status reserve(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = claim(g, s);
    if (st)
        return st;
    const int tiles_x = (g->width + GCUT_TILE_W - 1) / GCUT_TILE_W;
    const int tiles_y = (g->height + GCUT_TILE_H - 1) / GCUT_TILE_H;
    const int pitch = tiles_x * GCUT_TILE_W + 2, rows = tiles_y * GCUT_TILE_H + 2;
    const size_t nodes = (size_t)pitch * rows, tiles = (size_t)tiles_x * tiles_y;

    s->grid_warm = NULL; /* the buffers are about to hold another graph */

    if (nodes > s->grid_nodes || g->ndirs > s->grid_ndirs || tiles > s->grid_tiles) {
        gcut__gpu_release_grid(ctx);
        size_t free_bytes = 0, total_bytes = 0;
        GPU_CHECK(ctx, cudaMemGetInfo(&free_bytes, &total_bytes));
        size_t need = grid_bytes(nodes, g->ndirs, tiles);
        if (need > free_bytes)
            return gcut__fail(ctx, GCUT_E_DEVICE_NOMEM,
                              "gpu: a %dx%d grid needs %zu MiB on %s, and %zu MiB are free",
                              g->width, g->height, need >> 20, s->name, free_bytes >> 20);
        for (int d = 0; d < g->ndirs; d++)
            GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.res[d], nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.excess, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.sink, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.height, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.flag[0], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.flag[1], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.list[0], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.list[1], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.counters,
                                  GCUT_CNT_SLOTS * sizeof(unsigned long long)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.mask, nodes * sizeof(uint8_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->d_labels, nodes * sizeof(uint8_t)));
        /* queued, dirty, touched: one allocation, freed through queued. */
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queued, 3 * tiles * sizeof(int32_t)));
        s->dg.dirty = s->dg.queued + tiles;
        s->dg.touched = s->dg.queued + 2 * tiles;
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queue,
                                  queue_slots(tiles) * sizeof(unsigned long long)));
        s->dg.queue_cap = (long long)queue_slots(tiles);
        s->grid_nodes = nodes;
        s->grid_ndirs = g->ndirs;
        s->grid_tiles = tiles;
    }
    s->dg.img_w = g->width;
    s->dg.img_h = g->height;
    s->dg.ndirs = g->ndirs;
    s->dg.pitch = pitch;
    s->dg.rows = rows;
    s->dg.tiles_x = tiles_x;
    s->dg.tiles_y = tiles_y;
    return GCUT_OK;
fail:
    gcut__gpu_release_grid(ctx);
    return st;
}

/* Zero what the upload leaves: the rows below the host's raster (the tail
 * of the last tiles; the columns right of the host's pitch come up zeroed
 * with their rows). */
static cudaError_t zero_margins(gcut_grid *g, gcut__gpu *s, int32_t *d)
{
    const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
    const size_t host_rows = (size_t)g->height + 2;
    cudaError_t err = cudaSuccess;
    if ((size_t)s->dg.rows > host_rows)
        err = cudaMemsetAsync((unsigned char *)d + host_rows * dev_pitch, 0,
                              ((size_t)s->dg.rows - host_rows) * dev_pitch, s->stream);
    return err;
}

/* The device's overflow check of the uploaded graph; the message as the
 * host check words it, its total recomputed from the host arrays. */
static gcut_status check_overflow(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    unsigned long long *d_first = s->dg.counters; /* zeroed by the run */
    GPU_CHECK(ctx, cudaMemsetAsync(d_first, 0xff, sizeof *d_first, s->stream));
    overflow_kernel<<<blocks_for((long long)g->width * g->height), THREADS, 0, s->stream>>>(
        s->dg, d_first);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, d_first, sizeof *d_first,
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    if (s->h_counters[0] != ~0ull) {
        const long long p = (long long)s->h_counters[0];
        const int x = (int)(p % g->width), y = (int)(p / g->width);
        const int32_t i = gcut__grid_node(g, x, y);
        long long total = (long long)g->source_cap[i] + g->sink_cap[i];
        for (int d = 0; d < g->ndirs; d++)
            total += (long long)g->cap[d][i] + g->cap[d ^ 1][i + g->offset[d]];
        st = gcut__fail(ctx, GCUT_E_OVERFLOW,
                        "grid: the capacities at pixel (%d, %d) add up to %lld, over the int32 "
                        "limit %d",
                        x, y, total, INT32_MAX);
    }
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_upload(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    const double entered = gcut__now_ms();
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    memset(&s->xfer_trace, 0, sizeof s->xfer_trace);
    s->xfer_trace.upload_in = entered;
    if ((st = reserve(g, s)))
        return st;
    s->xfer_trace.reserved = gcut__now_ms();
    s->grid_owner = NULL;
    {
        xfer_array a[GCUT__MAX_DIRS + 2];
        const size_t row = (size_t)g->pitch * sizeof(int32_t);
        const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
        int n = 0;
        for (int d = 0; d < g->ndirs; d++)
            a[n++] = {(unsigned char *)g->cap[d], (unsigned char *)s->dg.res[d], row, dev_pitch};
        a[n++] = {(unsigned char *)g->source_cap, (unsigned char *)s->dg.excess, row, dev_pitch};
        a[n++] = {(unsigned char *)g->sink_cap, (unsigned char *)s->dg.sink, row, dev_pitch};
        for (int k = 0; k < n; k++)
            GPU_CHECK(ctx, zero_margins(g, s, (int32_t *)a[k].dev));
        GPU_CHECK(ctx, cudaMemsetAsync(s->dg.height, 0, s->grid_nodes * sizeof(int32_t),
                                       s->stream));
        if ((st = xfer_up(g, s, a, n, (size_t)g->height + 2)))
            goto fail;
    }
    s->xfer_trace.queued = gcut__now_ms();
    if ((st = check_overflow(g, s)))
        goto fail;
    s->xfer_trace.checked = gcut__now_ms();
    s->grid_owner = g;
    return GCUT_OK;
fail:
    s->grid_owner = NULL;
    return st;
}

/* For a graph built on the device (src/gpu/segment_gpu.cu): the buffers,
 * sized for `g`; the caller fills them and sets grid_owner. */
extern "C" gcut_status gcut__gpu_grid_reserve(gcut_grid *g)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(g->ctx, &s);
    if (!st)
        st = reserve(g, s);
    if (!st)
        s->grid_owner = NULL;
    return st;
}

extern "C" gcut_status gcut__gpu_grid_claim(gcut_grid *g)
{
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    return s ? claim(g, s) : GCUT_OK;
}

/* The labels of the run just done into g->label (host padded raster). */
static gcut_status download_labels(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    labels_kernel<<<blocks_for((long long)g->n_padded), THREADS, 0, s->stream>>>(s->dg,
                                                                                s->d_labels);
    GPU_CHECK(ctx, cudaGetLastError());
    {
        const xfer_array a = {g->label, s->d_labels, (size_t)g->pitch, (size_t)g->pitch};
        st = xfer_down(g, s, &a, 1, (size_t)g->height + 2);
    }
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_download(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if ((st = gcut__grid_alloc_solution(g)) || (st = download_labels(g, s)))
        return st;
    xfer_array a[GCUT__MAX_DIRS];
    const int n = residual_arrays(g, s, a);
    if ((st = xfer_down(g, s, a, n, (size_t)g->height + 2)))
        return st;
    g->res_on_device = 0;
    if (s->res_owner == g)
        s->res_owner = NULL;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_fetch_residuals(gcut_grid *g)
{
    if (!g->res_on_device)
        return GCUT_OK;
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    if (!s || s->res_owner != g) {
        g->res_on_device = 0;
        g->solved = 0;
        return gcut__fail(g->ctx, GCUT_E_STATE,
                          "grid: the residuals of the last GPU solve are no longer on the device");
    }
    gcut_status st = GCUT_OK;
    GPU_CHECK(g->ctx, cudaSetDevice(s->device));
    st = gcut__gpu_grid_save_residuals(g->ctx, s);
fail:
    return st;
}

extern "C" void gcut__gpu_grid_forget(gcut_grid *g)
{
    gcut__gpu *s = g->ctx ? (gcut__gpu *)g->ctx->gpu : NULL;
    if (s && s->res_owner == g)
        s->res_owner = NULL;
    g->res_on_device = 0;
}

/* After a run: the labels down; the residuals stay on the device. */
extern "C" gcut_status gcut__gpu_grid_finish(gcut_grid *g)
{
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    s->xfer_trace.finish_in = gcut__now_ms();
    gcut_status st = download_labels(g, s);
    s->xfer_trace.finish_out = gcut__now_ms();
    if (st)
        return st;
    s->res_owner = g;
    g->res_on_device = 1;
    return GCUT_OK;
}

static gcut_status solve(gcut_grid *g, int variant, int64_t *iterations)
{
    gcut_status st = gcut__gpu_grid_upload(g);
    if (!st)
        st = gcut__gpu_grid_run(g, variant, iterations);
    return st ? st : gcut__gpu_grid_finish(g);
}

extern "C" gcut_status gcut__gpu_grid_tiled(gcut_grid *g, int64_t *iterations)
{
    return solve(g, GCUT__GPU_GRID_TILED, iterations);
}

extern "C" gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations)
{
    return solve(g, GCUT__GPU_GRID_LOCKFREE, iterations);
}

extern "C" gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU run yet");
    *stats = s->grid_stats;
    stats->device_bytes = grid_bytes(s->grid_nodes, s->grid_ndirs, s->grid_tiles);
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_xfer_trace_json(gcut_context *ctx, double t0, char *buf,
                                                      size_t size)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    const stage_pool *pool = (const stage_pool *)ctx->stage_pool;
    if (!s || !pool || !s->xfer_trace.timed)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no grid uploaded from host arrays yet");
    const gcut__gpu_xfer_trace *t = &s->xfer_trace;
    float h2d_ms = -1; /* the stream from the first copy up to the last one's end */
    if (cudaEventElapsedTime(&h2d_ms, pool->mark[0], pool->mark[1]) != cudaSuccess) {
        cudaGetLastError();
        h2d_ms = -1;
    }
    snprintf(buf, size,
             "{\"upload_in\": %.3f, \"reserved\": %.3f, \"queued\": %.3f, \"checked\": %.3f, "
             "\"finish_in\": %.3f, \"finish_out\": %.3f, \"h2d_span_ms\": %.3f, "
             "\"copy_ms\": %.3f, \"wait_ms\": %.3f, \"up_bytes\": %lld, \"chunks\": %d, "
             "\"threads\": %d}",
             t->upload_in - t0, t->reserved - t0, t->queued - t0, t->checked - t0,
             t->finish_in - t0, t->finish_out - t0, h2d_ms, t->copy_ms, t->wait_ms, t->up_bytes,
             t->chunks, t->workers);
    return GCUT_OK;
}
