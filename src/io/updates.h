/* Capacity-update files for dynamic max-flow (`gcut maxflow --updates`).
 * Internal to libgcut.
 *
 *   c a comment                (anywhere; blank lines too)
 *   b                          a batch starts
 *   U V CAP                    arc U -> V (1-based) gets capacity CAP
 *
 * Every update line belongs to the batch opened by the last 'b' line; an
 * empty batch is allowed, a file without batches too. Errors name
 * NAME:LINE: GCUT_E_FORMAT (a bad or unknown line, an update before the
 * first 'b'), GCUT_E_RANGE (a node id outside 1..N, a negative capacity),
 * GCUT_E_OVERFLOW (a capacity past INT32_MAX), GCUT_E_IO (cannot read). */
#ifndef GCUT_IO_UPDATES_H
#define GCUT_IO_UPDATES_H

#include <stddef.h>
#include <stdint.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcut__updates {
    int32_t batches;
    int64_t count;        /* updates in all */
    int64_t *batch_start; /* batches + 1: batch b is updates batch_start[b] .. [b+1]-1 */
    int32_t *tail, *head; /* 0-based */
    int32_t *cap;
    int64_t *line; /* the line each update came from */
} gcut__updates;

/* Parse `len` bytes of `text` (need not end in '\0'); `name` names it in
 * messages, n is the graph's node count. */
gcut_status gcut__updates_parse(gcut_context *ctx, const char *text, size_t len, const char *name,
                                int32_t n, gcut__updates *out);

/* Read and parse the file at `path`. */
gcut_status gcut__updates_read(gcut_context *ctx, const char *path, int32_t n, gcut__updates *out);

void gcut__updates_free(gcut__updates *u);

/* libFuzzer-style entry: parses `data` as an update file for a graph of
 * 1000 nodes; never crashes, leaks or reads outside `data` on any input.
 * Always returns 0. */
int gcut_fuzz_updates(const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
