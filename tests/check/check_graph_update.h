/* Dynamic general graphs in plain C: gcut_graph_update() batches (raised,
 * lowered, zeroed, mixed and added arcs) followed by re-solves that continue
 * from the last flow, each checked against the reference max-flow of the
 * graph as it now stands, against a fresh solve's cut side, and (on most
 * batches) through the whole proof (gcut_graph_verify and an independent
 * check of the arc flows). */
#ifndef GCUT_TESTS_CHECK_GRAPH_UPDATE_H
#define GCUT_TESTS_CHECK_GRAPH_UPDATE_H

#include <stdint.h>

#include "check_common.h"

/* `count` random graphs (every regime of check_graph.h), each with a
 * sequence of 1 to 8 batches; one pass per sequence. */
void check_graph_update_sequences(check_report *r, int count, uint64_t seed);

/* The same on small instances of every generator family. */
void check_graph_update_families(check_report *r, int count, uint64_t seed);

/* Long prf sequences (10 to 40 batches of 1 arc to 2 % of the arcs) on
 * every generator family and random regime, with no flow asked for and no
 * proof between batches, so that the re-solves continue from the labels
 * the last one kept; each checked against the reference and a fresh
 * solve's cut, the last through the whole proof. Fails too when fewer
 * than half of the re-solves started from kept labels. */
void check_graph_update_kept_labels(check_report *r, int count, uint64_t seed);

/* The same on the GPU: the worklist solver re-solving from the state its
 * last solve left on the device, on every generator family and regime,
 * each re-solve checked like the CPU's (skipped without a GPU). */
void check_graph_update_gpu(check_report *r, int count, uint64_t seed);

/* Small batches (0.1 to 3 % of the arcs) on larger instances of every
 * family, re-solved warm with each warm policy (proved ends, adaptive
 * relabels, global relabels: instances in turn), some after a solve from
 * zero with a feasible flow (skipped without a GPU). */
void check_graph_update_gpu_small(check_report *r, int count, uint64_t seed);

/* Refused batches (a missing arc, a node out of range, a self-loop, a
 * negative capacity): GCUT_E_RANGE naming the update, the graph unchanged. */
void check_graph_update_refused(check_report *r, int count, uint64_t seed);

/* The update-file parser (src/io/updates.c): valid random files round-trip,
 * mutated ones parse or fail naming NAME:LINE, the fuzz entry survives all. */
void check_graph_update_parser(check_report *r, int count, uint64_t seed);

#endif
