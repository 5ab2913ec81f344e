/* Segmentation sessions in plain C: a session fed a growing sequence of
 * seeds (scribbles added one after another, as a person would) must give,
 * at every step, the very mask, flow and cut count of an independent
 * gcut_segment_image() with the same pixels, seeds and options. */
#ifndef GCUT_TESTS_CHECK_SEGMENT_SESSION_H
#define GCUT_TESTS_CHECK_SEGMENT_SESSION_H

#include <stdint.h>

#include "check_common.h"

/* `count` synthetic images (sizes, 1-4 channels with padded strides, both
 * colour models, 4 and 8 neighbours), each with 3 to 6 seed states. */
void check_segment_session_vs_image(check_report *r, int count, uint64_t seed);

/* The same with the session on the GPU (its cuts warm on the device), each
 * state against one-shot segmentations on the CPU and on the GPU (equal
 * masks, flow, cut count and foreground), --verify on every other image
 * (every warm cut's flow and cut checked on the host), and some images of
 * several tiles. Skipped without a usable GPU. */
void check_segment_session_gpu(check_report *r, int count, uint64_t seed);

#endif
