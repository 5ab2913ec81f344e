/* A growing list of (row, col[, cost]) entries, filled by the bipartite
 * readers before the graph is built. Internal to src/io. */
#ifndef GCUT_IO_ENTRY_LIST_H
#define GCUT_IO_ENTRY_LIST_H

#include <stdint.h>

typedef struct gcut__entries {
    int32_t *row, *col, *cost; /* cost NULL unless asked for */
    int64_t n, room;
    int with_cost;
} gcut__entries;

/* Start empty; `expect` (may be 0) sizes the first allocation, capped so
 * that a file's header alone cannot reserve gigabytes. 0 on success. */
int gcut__entries_init(gcut__entries *e, int with_cost, int64_t expect);

/* Append one entry; 0 on success, -1 when memory ran out. */
int gcut__entries_push(gcut__entries *e, int32_t row, int32_t col, int32_t cost);

void gcut__entries_free(gcut__entries *e);

#endif
