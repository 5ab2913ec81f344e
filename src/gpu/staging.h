/* Host <-> device copies through the context's pinned staging pool
 * (staging.cu), for any GPU path: the caller's pageable arrays are copied
 * by a few threads into pinned slots in chunks, each chunk's DMA queued as
 * soon as its slot is full, so that the host copies overlap the link.
 * Internal to src/gpu. */
#ifndef GCUT_GPU_STAGING_H
#define GCUT_GPU_STAGING_H

#include <stddef.h>

#include "gpu/gpu_state.h"

/* Arrays of one transfer, at most. */
#define GCUT__STAGE_ARRAYS_MAX 16

/* One array of a transfer: `rows` rows of row_bytes on the host (packed),
 * rows dev_pitch bytes apart on the device (dev_pitch >= row_bytes; on the
 * way up the margin is zeroed). */
typedef struct gcut__xfer_array {
    unsigned char *host;
    unsigned char *dev;
    size_t row_bytes, dev_pitch, rows;
} gcut__xfer_array;

/* n arrays (at most GCUT__STAGE_ARRAYS_MAX) between host and device on
 * s->stream. Up: returns with the copies queued and the host arrays read
 * (the caller may reuse them); down: done on return. */
gcut_status gcut__stage_transfer(gcut_context *ctx, gcut__gpu *s, const gcut__xfer_array *a,
                                 int n, int up);

/* `bytes` of contiguous host memory up to `dev`, as gcut__stage_transfer
 * (returns with the copies queued and `host` read). */
gcut_status gcut__stage_upload(gcut_context *ctx, gcut__gpu *s, void *dev, const void *host,
                               size_t bytes);

/* The upload's threads, at most (each scan hook's `part` is below). */
#define GCUT__STAGE_THREADS_MAX 12

/* Called by an upload's threads on each chunk once it is staged: `host`
 * its first byte in the caller's array, `staged` the same bytes in pinned
 * memory (just written: in the thread's cache), `part` the thread. */
typedef void (*gcut__stage_scan_fn)(void *arg, const unsigned char *host,
                                    const unsigned char *staged, size_t bytes, int part);

/* gcut__stage_upload with scan(arg, ...) on every chunk, from the thread
 * that copied it, so that a pass the caller needs over the same bytes
 * costs no pass of its own (and overlaps the link's copies). */
gcut_status gcut__stage_upload_scan(gcut_context *ctx, gcut__gpu *s, void *dev, const void *host,
                                    size_t bytes, gcut__stage_scan_fn scan, void *arg);

/* The stream's time from the last traced upload's first copy to its last
 * one's end (CUDA events), or GCUT_E_STATE when there is none. */
gcut_status gcut__stage_upload_span_ms(gcut_context *ctx, float *ms);

/* Buffers a GPU path keeps in the context between calls (its pool holds
 * them): one slot a path, freed with the context after its GPU state. */
enum { GCUT__KEEP_ASSIGN_DENSE = 0, GCUT__KEEP_SLOTS = 2 };

/* What `slot` holds, or NULL. */
void *gcut__stage_kept(gcut_context *ctx, int slot);

/* `obj` into `slot` (NULL: empty it without freeing), to be freed by
 * free_fn(obj) with the context; what the slot held is the caller's. */
gcut_status gcut__stage_keep(gcut_context *ctx, gcut__gpu *s, int slot, void *obj,
                             void (*free_fn)(void *));

#endif
