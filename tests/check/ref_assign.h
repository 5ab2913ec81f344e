/* An independent exact minimum-cost assignment for the flow checks:
 * successive shortest augmenting paths (Dijkstra on reduced costs with
 * column prices, as in Jonker and Volgenant 1987), simple and slow, so that
 * the flow's use of gcut_assign_csr can be checked against it. */
#ifndef GCUT_TESTS_REF_ASSIGN_H
#define GCUT_TESTS_REF_ASSIGN_H

#include <stdint.h>

/* Every row assigned to a distinct column of its CSR arcs at minimum total
 * cost. Returns 0, 1 when no assignment of every row exists, -1 when out of
 * memory. row_to_col[rows] out; total out. */
int ref_assign_csr(int32_t rows, int32_t cols, const int64_t *row_ptr, const int32_t *col_idx,
                   const int32_t *cost, int32_t *row_to_col, int64_t *total);

#endif
