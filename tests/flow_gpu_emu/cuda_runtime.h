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
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
extern dim3 blockIdx, threadIdx, blockDim, gridDim;
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
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) { unsigned long long o = *p; if (o == cmp) *p = v; return o; }
static inline unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; *p = v; return o; }
static inline int atomicExch(int *p, int v) { int o = *p; *p = v; return o; }
static inline int atomicAdd(int *p, int v) { int o = *p; *p += v; return o; }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; *p += v; return o; }
static inline void __threadfence() {}
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
#define EMU_LAUNCH(kernel, grid, block, ...) do { \
    dim3 g_(grid), b_(block); gridDim = g_; blockDim = b_; \
    for (unsigned bx = 0; bx < g_.x; bx++) for (unsigned by = 0; by < g_.y; by++) \
    for (unsigned ty = 0; ty < b_.y; ty++) for (unsigned tx = 0; tx < b_.x; tx++) { \
        blockIdx = dim3(bx, by); threadIdx = dim3(tx, ty); kernel(__VA_ARGS__); } } while (0)
