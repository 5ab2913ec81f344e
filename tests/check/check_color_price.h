/* The colour pricing (src/vision/color_price.h) on generated colour models:
 * the host's prices against a plain evaluation of GrabCut's formula, and
 * the device's prices, terminal tables and energy constants against the
 * host's, bit for bit (gcut-check runs it on the device machine; without a
 * usable GPU the device's instances count as skipped). */
#ifndef GCUT_TESTS_CHECK_COLOR_PRICE_H
#define GCUT_TESTS_CHECK_COLOR_PRICE_H

#include <stdint.h>

#include "check_common.h"

/* `count` instances: a pair of models (GMMs fitted to random sample clouds
 * with 1 to 32 components, GMMs with extreme parameters: huge and tiny
 * inverse covariances, far means, one used component; smoothed
 * histograms), priced on colours that are random, at the cube's corners
 * and at the components' means. Each price must equal the same formula
 * written out in plain float C (the order GrabCut's code always had) and
 * lie within float's rounding (1e-5 of the terms' magnitudes) of a double
 * evaluation; each terminal entry
 * and the constant must equal a reference computed apart (clamping,
 * rounding, counts up to 2^28). */
void check_color_price_host(check_report *r, int count, uint64_t seed);

/* The same instances priced on the device (gcut__seg_gpu_price_check):
 * prices, terminal table (K's entries included) and constant equal to the
 * host's, bit for bit. */
void check_color_price_gpu_vs_cpu(check_report *r, int count, uint64_t seed);

/* `count` random images (sizes, colours, labels 0 / 1 / 2 with either side
 * possibly small or empty): gcut__color_model_fit_pair (both sides' samples
 * from one pass) gives the two models that two gcut__color_model_fit calls
 * give, bit for bit, with 1 thread and with several, GMMs and histograms;
 * an empty side fails with the same message. */
void check_color_fit_pair(check_report *r, int count, uint64_t seed);

/* `count` random images and cuts (discs, thin stripes, noise, one side
 * only), 4- and 8-connected, with and without foreground seeds, up to
 * 520x400 (sample steps above 1): the device's refit (segment_gpu.h) gives
 * the fit labels of a breadth-first search from the seeds, and from them
 * the models gcut__color_model_fit_pair gives on the host, bit for bit. */
void check_color_refit_gpu_vs_cpu(check_report *r, int count, uint64_t seed);

#endif
