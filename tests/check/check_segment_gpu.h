/* Segmentation with the energy built on the GPU against the CPU path, in
 * plain C (gcut-check runs it on the device machine; without a usable GPU
 * every instance counts as skipped). */
#ifndef GCUT_TESTS_CHECK_SEGMENT_GPU_H
#define GCUT_TESTS_CHECK_SEGMENT_GPU_H

#include <stdint.h>

#include "check_common.h"

/* `count` segmentations, cycling through: the bundled sample (samples/,
 * found from the working directory or its parents), grey and RGB and RGBA
 * synthetic images of random sizes (widths rarely a multiple of the tile),
 * 1-pixel-wide and 1-pixel-tall images, nearly every pixel seeded; with
 * random connectivity, model, lambda and iterations, and --verify on every
 * other one. --device gpu against --device cpu: the saved graphs (every
 * capacity, fetched from the device) are byte-equal, and so are the masks,
 * flow, energy, beta, K and iterations; the GPU's run names the GPU as its
 * device. Where the runs differ, the first cut where they part must be a
 * tie: the same graph and flow, the GPU's cut verified, and the CPU's
 * source side inside the GPU's (BK returns the smallest minimum-cut source
 * side, the tiled solver the largest; they differ only where the minimum
 * cut is not unique, e.g. with lambda 0). Inputs that must fail (a 1x1
 * image, every pixel seeded, no background seed) fail on both with the
 * same status and message. */
void check_segment_gpu_vs_cpu(check_report *r, int count, uint64_t seed);

#endif
