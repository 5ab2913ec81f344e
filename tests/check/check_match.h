/* Matching checks in plain C: every solver against an independent simple
 * augmenting-path matcher (ref_match below) on generated bipartite graphs
 * of many shapes and on the shared SuiteSparse matrices, each answer's
 * proof checked here (a valid matching, a cover touching every edge, equal
 * sizes) and by gcut_match_verify().
 *
 * An instance is named by (seed, index): the same pair always builds the
 * same entry list, so the GPU check hands its solver the CPU's input. */
#ifndef GCUT_TESTS_CHECK_MATCH_H
#define GCUT_TESTS_CHECK_MATCH_H

#include <stdint.h>

#include "check_common.h"
#include "gcut.h"

/* An entry list as given to gcut_bipartite_create_from_edges(). */
typedef struct check_match_entries {
    int32_t rows, cols;
    int64_t nnz;
    int32_t *row, *col;
    char name[96]; /* the shape and size, for messages */
} check_match_entries;

/* Instance `index` of the stream `seed`. Shapes by index % 11: sparse
 * random, empty rows and columns, perfect (a hidden permutation), deficient
 * (more rows than columns can take), one row joined to every column,
 * wide, tall, heavy duplicates, dense, ladders (long augmenting paths that
 * fool the greedy start), and empty graphs (no rows, no columns or no
 * edges). Sizes up to 60 per side, up to 3000 for every 7th index. 0 on
 * success; free with check_match_entries_free(). */
int check_match_instance(uint64_t seed, int index, check_match_entries *out);
void check_match_entries_free(check_match_entries *e);

/* A larger instance: uniform or power-law random (1000 to 30000 rows, 4
 * entries a row) or a 2-D or 3-D mesh pattern (5- or 7-point Laplacian)
 * with a tenth of its entries removed, so the matching is deficient. */
int check_match_large_instance(uint64_t seed, int index, check_match_entries *e);

/* The maximum matching size by simple augmenting paths (Kuhn's algorithm,
 * iterative), independent of the library. -1 on allocation failure. */
int32_t check_match_reference(const check_match_entries *e);

/* Solve `b` with `algo` in b's context, check the result's proof here and
 * by gcut_match_verify(), and compare its size with `expected`. 0 when all
 * holds; else the message is recorded in `r`. `device_name` (may be NULL)
 * is what info.device must be. */
int check_match_solve(check_report *r, gcut_bipartite *b, const char *algo, int32_t expected,
                      const char *what, const char *device_name);

/* The CPU solvers on `count` generated instances against the reference,
 * and on every 25th index a larger instance, pr against hk. */
void check_match_cpu_vs_reference(check_report *r, int count, uint64_t seed);

/* The folder of the shared matrices (GCUT_MATRICES, else
 * ../shared/data/matrices beside the source tree or the working folder),
 * or NULL. */
const char *check_match_matrices_dir(void);

/* The CPU solvers on every matrix of ../shared/data/matrices (found from
 * GCUT_MATRICES, or relative to the working folder; none there: skipped). */
void check_match_matrices(check_report *r, int count, uint64_t seed);

/* gcut_match_verify() refuses broken matchings and covers, naming them. */
void check_match_verify_refuses(check_report *r, int count, uint64_t seed);

#endif
