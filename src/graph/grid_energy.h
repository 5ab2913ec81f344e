/* A segmentation energy on a grid, built where its solver runs.
 *
 * Every capacity comes from two integer tables the caller computes: the
 * n-link weight of a neighbour pair by its squared colour difference
 * |Ip - Iq|^2 (axis-aligned and diagonal), and the signed terminal capacity
 * of a pixel by its entry (its colour's number, or `colors` for a
 * foreground seed and `colors + 1` for a background one; > 0 to the
 * source, < 0 to the sink). On the CPU the graph is written into the
 * grid's arrays; on the GPU (src/gpu/segment_gpu.cu) it is written on the
 * device from the image uploaded once, and only the labels come back. The
 * graphs are equal entry for entry, so the cuts are too. Which one runs is
 * the solver table's choice (grid_solve.h). Internal to libgcut. */
#ifndef GCUT_GRAPH_GRID_ENERGY_H
#define GCUT_GRAPH_GRID_ENERGY_H

#include <stdint.h>

#include "graph/grid.h"
#include "vision/color_price.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcut__grid_energy gcut__grid_energy;

/* The image the energy is built from; the arrays stay the caller's and
 * must outlive the energy. */
typedef struct gcut__energy_image {
    const uint8_t *rgb;              /* width*height packed RGB pixels */
    const uint8_t *seeds;            /* gcut_seed per pixel */
    const uint32_t *colour_of_pixel; /* each pixel's colour number, < colors */
    int64_t colors;
    int threads;                     /* CPU threads of the passes and the cut (0: the context's) */
} gcut__energy_image;

/* Pick the solver for `g` (a fresh grid of the image's size) as
 * gcut_grid_solve() would, with `cpu_default` as the CPU's default, and
 * make ready to build the energy where it runs. With `keep_solution`
 * every solve leaves the whole solution in the grid (for
 * gcut_grid_verify()), not only the labels. Under GCUT_DEVICE_AUTO a GPU
 * without room for the image means the CPU, said through the log. */
gcut_status gcut__grid_energy_open(gcut_grid *g, const char *algo, const char *cpu_default,
                                   const gcut__energy_image *image, int keep_solution,
                                   gcut__grid_energy **out);
void gcut__grid_energy_close(gcut__grid_energy *e);

/* The exact sum of |Ip - Iq|^2 over the grid's neighbour pairs, each once. */
gcut_status gcut__grid_energy_d2_sum(gcut__grid_energy *e, int64_t *sum);

/* Set every n-link from `table` (entries [0, len): the axis-aligned weight
 * by squared difference, [len, 2 len): the diagonal one) and give the
 * largest sum of a pixel's n-link capacities. Once, before the terminals. */
gcut_status gcut__grid_energy_set_nlinks(gcut__grid_energy *e, const int32_t *table, int len,
                                         int32_t *largest);

/* Set every terminal capacity from tcap (colors + 2 entries, as above). */
gcut_status gcut__grid_energy_set_terminals(gcut__grid_energy *e, const int32_t *tcap);

/* Solve the graph as set: labels (width*height, 1 = source side) and the
 * solve's info. */
gcut_status gcut__grid_energy_solve(gcut__grid_energy *e, uint8_t *labels, gcut_solve_info *info);

/* For a segmentation session (one image, many seed states): keep the cut
 * warm. On the GPU the n-links set last stay on the device and every later
 * cut starts from the last flow (src/gpu/grid_gpu_update.cu); on the CPU
 * nothing changes (the solver table's own warm starts apply). Call after
 * gcut__grid_energy_set_nlinks. */
gcut_status gcut__grid_energy_keep_warm(gcut__grid_energy *e);

/* New seeds (width*height gcut_seed bytes, kept by the caller like the
 * image) for the next terminals. */
gcut_status gcut__grid_energy_set_seeds(gcut__grid_energy *e, const uint8_t *seeds);

/* 1 when the energy lives on the GPU and is not kept warm: there the seeds
 * went up once, with the image, so new seeds need a new energy. */
int gcut__grid_energy_needs_reopen(const gcut__grid_energy *e);

/* The graph as set, in the grid's capacity arrays (for writing it out). */
gcut_status gcut__grid_energy_to_host(gcut__grid_energy *e);

/* Pricing where the graph lives (vision/color_price.h): 1 when the
 * energy is on the GPU, whose device then prices every colour itself (the
 * host's numbers, bit for bit) and keeps the terminal table there. */
int gcut__grid_energy_prices_on_device(const gcut__grid_energy *e);

/* For the device's pricing, once per seed state: the distinct colours
 * (colors x RGB; they go up the first time only), the per-colour counts of
 * free, foreground- and background-seeded pixels, and K. */
gcut_status gcut__grid_energy_price_begin(gcut__grid_energy *e, const uint8_t *colours,
                                          const uint32_t *n_free, const uint32_t *n_fg_seed,
                                          const uint32_t *n_bg_seed, int32_t hard_cap);

/* Price every colour under fg and bg on the device and set every terminal
 * capacity from the table it made (as gcut__grid_energy_set_terminals
 * would from the host's); *constant: the energy's scaled constant part.
 * `tcap_scratch` (colors + 2 entries): host room the warm GPU cut's
 * terminals may pass through. */
gcut_status gcut__grid_energy_price_terminals(gcut__grid_energy *e, const gcut__price_model *fg,
                                              const gcut__price_model *bg, int64_t *constant,
                                              int32_t *tcap_scratch);

#ifdef __cplusplus
}
#endif

#endif
