/* The parallel CPU grid cut "pbk" against the reference and BK, in plain C
 * (run by gcut-check and the Criterion suite). */
#ifndef GCUT_TESTS_CHECK_GRID_PARALLEL_H
#define GCUT_TESTS_CHECK_GRID_PARALLEL_H

#include <stdint.h>

#include "check_common.h"

/* On `count` grids of the stream `seed` (check_grid_random(): every regime,
 * 1x1 to 64x64, 4- and 8-connected) plus, every tenth instance, a larger
 * grid of up to 300x200 pixels (blobs of source and sink preference over
 * random n-links), each solved by "pbk" with 1 to 8 threads (so 1 to 8 row
 * strips, down to strips of one row): the flow equals the independent
 * reference's (small grids) or BK's (larger ones), gcut_grid_verify()
 * passes, the labels' cut equals the flow, and the labels are exactly the
 * reference's (BK's) source side, the pixels that cannot reach the sink. */
void check_grid_pbk_vs_reference(check_report *r, int count, uint64_t seed);

#endif
