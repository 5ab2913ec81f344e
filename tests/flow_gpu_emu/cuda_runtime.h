/* A sequential CPU stand-in for the CUDA runtime (tests/flow_gpu_emu/run.sh):
 * enough of it to run the flow kernels one thread after another. */
#pragma once
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(x)
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef int cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorNoDevice = 100, cudaErrorInsufficientDriver = 35 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
struct int4 { int x, y, z, w; };
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
extern thread_local dim3 blockIdx, threadIdx;
extern dim3 blockDim, gridDim;
static inline cudaError_t cudaPeekAtLastError() { return 0; }
static inline cudaError_t cudaGetLastError() { return 0; }
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) { memset(p, v, n); return 0; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t) { memmove(d, s, n); return 0; }
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n) { *p = (T *)calloc(1, n ? n : 1); return *p ? 0 : 2; }
static inline cudaError_t cudaFree(void *p) { free(p); return 0; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = 0; return 0; }
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return 0; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return 0; }
static inline const char *cudaGetErrorString(cudaError_t) { return "emulated"; }
/* Real atomics: with EMU_THREADS > 1 the GPU threads run on several CPU
 * threads at once, so the auctions' races happen for real. */
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) { __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return cmp; }
static inline unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline int atomicExch(int *p, int v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline long long atomicMax(long long *p, long long v) { long long o = __atomic_load_n(p, __ATOMIC_SEQ_CST); while (o < v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {} return o; }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#ifndef EMU_LOCKSTEP
/* Warp intrinsics for a warp of one lane (run.sh builds the kernels with
 * FLOW_LANES=1): a lane's own value. */
template <class T> static inline T __shfl_sync(unsigned, T v, int) { return v; }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int) { return v; }
static inline void __syncwarp() {}
#else
/* Lockstep warps (run.sh with EMU_LANES=32, the kernels built with
 * FLOW_LANES=32): a warp's 32 lanes run as fibers on one CPU thread, each
 * switched out at every warp intrinsic until all have reached it, so
 * shuffles, reductions and ballots see every lane's value as on a GPU. */
#include <ucontext.h>
#include <functional>
struct emu_warp_state {
    ucontext_t main, lane[32];
    unsigned long long slot[32];
    int done[32], cur;
    std::function<void()> body;
};
inline emu_warp_state emu_w;
static inline void emu_yield() { swapcontext(&emu_w.lane[emu_w.cur], &emu_w.main); }
template <class T> static inline T emu_exchange(T v, int src)
{
    unsigned long long raw = 0;
    memcpy(&raw, &v, sizeof v);
    emu_w.slot[emu_w.cur] = raw;
    emu_yield(); /* every lane has written its slot */
    raw = emu_w.slot[src & 31];
    emu_yield(); /* every lane has read */
    T r;
    memcpy(&r, &raw, sizeof r);
    return r;
}
template <class T> static inline T __shfl_sync(unsigned, T v, int src) { return emu_exchange(v, src); }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int off) { return emu_exchange(v, emu_w.cur ^ off); }
static inline void __syncwarp() { emu_yield(); }
static inline unsigned emu_collect(unsigned v, int op)
{
    emu_w.slot[emu_w.cur] = v;
    emu_yield();
    unsigned r = op ? 0u : 0xffffffffu;
    for (int i = 0; i < 32; i++) {
        unsigned x = (unsigned)emu_w.slot[i];
        r = op ? r | (x ? 1u << i : 0u) : x < r ? x : r;
    }
    emu_yield();
    return r;
}
static inline unsigned __reduce_min_sync(unsigned, unsigned v) { return emu_collect(v, 0); }
static inline unsigned __ballot_sync(unsigned, int p) { return emu_collect(p != 0, 1); }
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
#endif
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
/* A launch: every (block, thread) in turn, or with EMU_THREADS=T spread
 * over T CPU threads (GPU thread i on CPU thread i mod T). */
#include <thread>
#include <vector>
#ifdef EMU_LOCKSTEP
static void emu_lane_entry()
{
    emu_w.body();
    emu_w.done[emu_w.cur] = 1;
}
template <class F> static void emu_launch(dim3 g, dim3 b, F body)
{
    gridDim = g, blockDim = b;
    static char *stacks[32];
    for (int l = 0; l < 32; l++)
        if (!stacks[l])
            stacks[l] = (char *)malloc(1 << 18);
    emu_w.body = body;
    for (long blk = 0; blk < (long)g.x * g.y; blk++)
        for (unsigned t0 = 0; t0 < b.x * b.y; t0 += 32) {
            const int lanes = b.x * b.y - t0 < 32 ? (int)(b.x * b.y - t0) : 32;
            for (int l = 0; l < lanes; l++) {
                getcontext(&emu_w.lane[l]);
                emu_w.lane[l].uc_stack.ss_sp = stacks[l];
                emu_w.lane[l].uc_stack.ss_size = 1 << 18;
                emu_w.lane[l].uc_link = &emu_w.main;
                makecontext(&emu_w.lane[l], emu_lane_entry, 0);
                emu_w.done[l] = 0;
            }
            for (int left = lanes; left;) {
                left = 0;
                for (int l = 0; l < lanes; l++) {
                    if (emu_w.done[l])
                        continue;
                    emu_w.cur = l;
                    blockIdx = dim3((unsigned)(blk % g.x), (unsigned)(blk / g.x));
                    threadIdx = dim3((t0 + l) % b.x, (t0 + l) / b.x);
                    swapcontext(&emu_w.main, &emu_w.lane[l]);
                    left += !emu_w.done[l];
                }
            }
        }
}
#else
template <class F> static void emu_launch(dim3 g, dim3 b, F body)
{
    gridDim = g, blockDim = b;
    const char *env = getenv("EMU_THREADS");
    long total = (long)g.x * g.y * b.x * b.y, threads = env ? atol(env) : 1;
    auto run = [=](long first, long step) {
        for (long i = first; i < total; i += step) {
            long t = i % ((long)b.x * b.y), blk = i / ((long)b.x * b.y);
            blockIdx = dim3((unsigned)(blk % g.x), (unsigned)(blk / g.x));
            threadIdx = dim3((unsigned)(t % b.x), (unsigned)(t / b.x));
            body();
        }
    };
    if (threads <= 1) {
        run(0, 1);
        return;
    }
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; t++)
        pool.emplace_back(run, t, threads);
    for (auto &th : pool)
        th.join();
}
#endif
#define EMU_LAUNCH(kernel, grid, block, ...) emu_launch(dim3(grid), dim3(block), [=] { kernel(__VA_ARGS__); })
