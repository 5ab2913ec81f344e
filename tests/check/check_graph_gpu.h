/* GPU general-graph solvers against the CPU, in plain C (gcut-check runs
 * these on the device machine; without a usable GPU every instance counts
 * as skipped). */
#ifndef GCUT_TESTS_CHECK_GRAPH_GPU_H
#define GCUT_TESTS_CHECK_GRAPH_GPU_H

#include <stdint.h>

#include "check_common.h"

/* On `count` instances of the stream `seed`: small random graphs of every
 * regime of check_graph_random_arcs() (sparse, dense, s-t disconnected,
 * zero capacities, parallel arcs and self-loops, tiny and near-INT32_MAX
 * capacities, layered) and small generator instances, checked against the
 * independent reference (check_graph_solution: value, verify, arc flows,
 * cut); and every tenth instance a larger one (genrmf, RLG, acyclic-dense,
 * vision, a random graph with a high-degree hub), checked against prf: the
 * same value, gcut_graph_verify() on the GPU's flow and cut, and the same
 * cut side as prf. Alternate instances ask for the flow inside the solve
 * (phase 2 on the GPU) or afterwards (phase 2 on the CPU). The solve must
 * report the GPU's name as its device. */
void check_graph_gpu_worklist_vs_cpu(check_report *r, int count, uint64_t seed);
/* The worklist solver on larger graphs of the shapes that select each of
 * its pushes (check_graph_gpu.c, shape_graph): RLG, a one-way hub of over
 * 1024 arcs, acyclic-dense of over 1024 and of under 250 nodes, genrmf;
 * against prf (value, verify, side), and the push it picked (the split
 * push by degree, or a warp per node where arcs come in pairs). */
void check_graph_gpu_worklist_shapes_vs_cpu(check_report *r, int count, uint64_t seed);
/* Warm re-solves with the chase depth forced (GCUT_GPU_WARM_CHASE 0, 1,
 * 3, 64 in turn) on genrmf, vision (the warp push) and RLG (the split
 * push): batches raised, lowered and mixed, each re-solve's value and cut
 * side against prf from zero on a twin, the last one's proof verified. */
void check_graph_gpu_warm_chase_vs_cpu(check_report *r, int count, uint64_t seed);
void check_graph_gpu_async_vs_cpu(check_report *r, int count, uint64_t seed);
void check_graph_gpu_color_vs_cpu(check_report *r, int count, uint64_t seed);

#endif
