/* Warm re-solves of the GPU grid solver ("tiled", whose flow stays on the
 * device between solves) against fresh CPU solves, in plain C; without a
 * usable GPU every instance counts as skipped. */
#ifndef GCUT_TESTS_CHECK_GRID_GPU_UPDATE_H
#define GCUT_TESTS_CHECK_GRID_GPU_UPDATE_H

#include <stdint.h>

#include "check_common.h"

/* check_grid_bk_resolve's sequences on the GPU: `count` random grids
 * cycling through every regime (zero, tiny, near-INT32_MAX, asymmetric,
 * sparse, mazes, thin; 4- and 8-connected), each solved and then changed
 * four times (terminals and n-links; up, down, to zero; one pixel, some,
 * all; one by one or whole arrays) and solved again on the same handle:
 * every solve's flow equals the reference's and a fresh BK solve's of a
 * copy, gcut_grid_verify() passes, the labels' cut equals the flow and
 * holds the reference's source side. */
void check_grid_gpu_resolve(check_report *r, int count, uint64_t seed);

/* Grids of many tiles, two at a time on one GPU context, solved in turn
 * two rounds each (the second warm, the first cold after the other grid
 * took the device), between rounds a batch of changes: terminals flipped
 * between source and sink or zeroed in a disc, n-links raised, lowered or
 * zeroed at random. Every solve: the flow of a fresh BK solve of a copy,
 * and gcut_grid_verify(). */
void check_grid_gpu_resolve_large(check_report *r, int count, uint64_t seed);

/* The segmentation energy's warm cuts on the GPU, whose terminals are
 * reparametrised (grid_kernels/grid_update.h): random images of random
 * colour patches, n-link tables and terminal tables changed state after
 * state (colours flipped between source and sink, grown, shrunk, zeroed;
 * seeds added), each cut's flow equal to a fresh CPU cut's of the same
 * graph, gcut_grid_verify() passing on the raised graph, the graph as set
 * (raises taken off) equal to the CPU's; every cut after an instance's
 * first starts from the last flow, and some raise a terminal. */
void check_grid_gpu_reparam(check_report *r, int count, uint64_t seed);

#endif
