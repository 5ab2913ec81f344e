/* Checks that the guards against bad input and bad answers hold (issue 22):
 * each plants the fault a guard exists for and expects the guard to fire,
 * then removes it and expects the guard to stay quiet.
 *  - the proof checkers (gcut_graph_verify, gcut_grid_verify) on solved
 *    graphs whose flow, cut or value was tampered with;
 *  - every range check of the readers at its limit and one past it, and the
 *    memory budget;
 *  - the atomic writer's failure paths (the rename refused, a file-size
 *    limit reached part-way): the earlier file intact, no temporary left;
 *  - the segmentation's reported energy against one computed here from the
 *    definition in gcut.h. */
#ifndef GCUT_TESTS_CHECK_HOSTILE_H
#define GCUT_TESTS_CHECK_HOSTILE_H

#include <stdint.h>

#include "check_common.h"

void check_hostile_graph_tamper(check_report *r, int count, uint64_t seed);
void check_hostile_grid_tamper(check_report *r, int count, uint64_t seed);
void check_hostile_dimacs_limits(check_report *r, int count, uint64_t seed);
void check_hostile_image_limits(check_report *r, int count, uint64_t seed);
void check_hostile_memory_budget(check_report *r, int count, uint64_t seed);
void check_hostile_atomic_writer(check_report *r, int count, uint64_t seed);
void check_hostile_segment_energy(check_report *r, int count, uint64_t seed);
/* The matrix readers' limits and the matching, assignment and flow
 * solvers' memory budget (check_hostile_matrices.c). */
void check_hostile_matrix_limits(check_report *r, int count, uint64_t seed);

/* Shared by the files of these checks: `got` is `want` and the context's
 * message holds `needle` (NULL: any); else a failure naming `what`. */
int check_hostile_expect(check_report *r, gcut_context *ctx, gcut_status got, gcut_status want,
                         const char *needle, const char *what);

/* A fresh folder under TMPDIR (or /tmp) into dir (at least 96 bytes), and
 * its removal with what it holds. 0 on success. */
int check_hostile_temp_dir(char *dir, const char *tag);
void check_hostile_remove_dir(const char *dir);

/* The names in `dir` that contain ".tmp-" (the atomic writer's
 * temporaries) counted. */
int check_hostile_temporaries(const char *dir);

#endif
