/* Checks of the public API's contracts that the solver checks do not
 * cover: a stop from the progress callback, the lifetime of
 * gcut_solve_info.device, the generator entry, the overlay, the version. */
#ifndef GCUT_TESTS_CHECK_API_H
#define GCUT_TESTS_CHECK_API_H

#include "check_common.h"

/* A solve stopped by the progress callback returns GCUT_E_INTERRUPTED and
 * no result; the same grid solved again afterwards gives the exact flow
 * (BK, warm from the stopped state). `count` grids of 1.1 megapixels. */
void check_api_interrupted(check_report *r, int count, uint64_t seed);

/* The contracts of the small public entries (count: random instances of
 * the generator and overlay comparisons). */
void check_api_contracts(check_report *r, int count, uint64_t seed);

#endif
