/* Bipartite graphs in plain C: building from entries (duplicates merged,
 * the smallest cost kept) against a dense reference, and the Matrix Market
 * and edge-list readers on good files and on every malformed case, each
 * refused with its status and PATH:LINE. */
#ifndef GCUT_TESTS_CHECK_BIPARTITE_H
#define GCUT_TESTS_CHECK_BIPARTITE_H

#include <stdint.h>

#include "check_common.h"

/* `count` random entry lists (0..30 rows and columns, many duplicates, with
 * and without costs) built and compared edge by edge; bad arguments. */
void check_bipartite_build(check_report *r, int count, uint64_t seed);

/* The reader cases (count and seed unused: a fixed table). */
void check_bipartite_read(check_report *r, int count, uint64_t seed);

#endif
