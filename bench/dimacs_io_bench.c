/* Times the grid graph file writer and reader (gcut_grid_write_dimacs,
 * gcut_grid_read_dimacs) on a random W x H grid, and checks that what is read
 * back is what was written. Not run by CI.
 *
 * Build (after the library):
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude bench/dimacs_io_bench.c \
 *      build/libgcut.a -lpng -ljpeg -lm -lpthread -o build/dimacs-io-bench
 * Run:
 *   build/dimacs-io-bench /tmp/g.max 2048 2048 8 [repeats]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "gcut.h"

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static int die(gcut_context *ctx, const char *what)
{
    fprintf(stderr, "dimacs-io-bench: %s: %s\n", what, gcut_last_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s FILE WIDTH HEIGHT CONN [REPEATS]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int w = atoi(argv[2]), h = atoi(argv[3]), conn = atoi(argv[4]);
    int repeats = argc > 5 ? atoi(argv[5]) : 3;
    gcut_context *ctx = NULL;
    gcut_grid *g = NULL;
    if (gcut_context_create(NULL, &ctx) || gcut_grid_create(ctx, w, h, conn, &g))
        return die(ctx, "create");

    /* Vision-like values: one terminal arc per pixel, n-links 1..100. */
    size_t n = (size_t)w * h;
    int32_t *src = malloc(n * sizeof *src), *snk = malloc(n * sizeof *snk);
    if (!src || !snk)
        return 1;
    for (size_t i = 0; i < n; i++) {
        int32_t c = (int32_t)(rng() % 1000);
        src[i] = rng() & 1 ? c : 0;
        snk[i] = src[i] ? 0 : c;
    }
    if (gcut_grid_set_terminals(g, src, snk))
        return die(ctx, "terminals");
    for (int d = 0; d < conn; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int inside = x + dx >= 0 && y + dy >= 0 && x + dx < w && y + dy < h;
                src[(size_t)y * w + x] = inside ? 1 + (int32_t)(rng() % 100) : 0;
            }
        if (gcut_grid_set_edges(g, (gcut_dir)d, src))
            return die(ctx, "edges");
    }

    for (int r = 0; r < repeats; r++) {
        double t0 = wall_ms(), c0 = cpu_ms();
        if (gcut_grid_write_dimacs(g, path))
            return die(ctx, "write");
        printf("write: %.0f ms wall, %.0f ms cpu\n", wall_ms() - t0, cpu_ms() - c0);
    }
    struct stat sb;
    if (stat(path, &sb) == 0)
        printf("file: %s, %dx%d %d-connected, %.0f MB\n", path, w, h, conn, sb.st_size / 1e6);
    gcut_grid *back = NULL;
    for (int r = 0; r < repeats; r++) {
        gcut_grid_destroy(back);
        back = NULL;
        double t0 = wall_ms(), c0 = cpu_ms();
        if (gcut_grid_read_dimacs(ctx, path, &back))
            return die(ctx, "read");
        printf("read: %.0f ms wall, %.0f ms cpu\n", wall_ms() - t0, cpu_ms() - c0);
    }

    /* What was read is what was written. */
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int32_t s1, t1, s2, t2, c1, c2;
            gcut_grid_get_terminal(g, x, y, &s1, &t1);
            gcut_grid_get_terminal(back, x, y, &s2, &t2);
            int same = s1 == s2 && t1 == t2;
            for (int d = 0; d < conn && same; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                    continue;
                gcut_grid_get_edge(g, x, y, (gcut_dir)d, &c1);
                gcut_grid_get_edge(back, x, y, (gcut_dir)d, &c2);
                same = c1 == c2;
            }
            if (!same) {
                fprintf(stderr, "dimacs-io-bench: pixel (%d, %d) differs after the round trip\n", x,
                        y);
                return 1;
            }
        }
    }
    printf("round trip: identical capacities\n");
    gcut_grid_destroy(back);
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
    free(src);
    free(snk);
    return 0;
}
