/* A program that embeds libgcut: cut a small synthetic image into a bright
 * square and its dark surround, check the proof, and print the cut. Built
 * against an installed gcut (CMakeLists.txt: find_package(gcut); Makefile:
 * pkg-config), linked with libgcut.so or libgcut.a. */
#include <stdio.h>
#include <stdlib.h>

#include <gcut.h>

enum { W = 12, H = 8 };

static int fail(gcut_context *ctx, gcut_status st, const char *what)
{
    fprintf(stderr, "embed: %s: %s (%s)\n", what, gcut_last_error(ctx), gcut_status_str(st));
    return 1;
}

int main(void)
{
    /* Brightness: a square of 200 in a field of 40, with noise. */
    int32_t source[W * H], sink[W * H], east[W * H] = {0}, west[W * H] = {0},
                                         south[W * H] = {0}, north[W * H] = {0};
    uint8_t labels[W * H];
    srand(7);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int inside = x >= 3 && x < 8 && y >= 2 && y < 6;
            int v = (inside ? 200 : 40) + rand() % 41 - 20;
            source[y * W + x] = v;       /* likes the foreground when bright */
            sink[y * W + x] = 255 - v;
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (x + 1 < W)
                east[y * W + x] = west[y * W + x + 1] = 60;
            if (y + 1 < H)
                south[y * W + x] = north[(y + 1) * W + x] = 60;
        }

    gcut_context *ctx = NULL;
    gcut_grid *g = NULL;
    gcut_solve_info info;
    int64_t cut = 0;
    gcut_status st = gcut_context_create(NULL, &ctx);
    if (st)
        return fail(ctx, st, "context");
    if ((st = gcut_grid_create(ctx, W, H, 4, &g)) ||
        (st = gcut_grid_set_terminals(g, source, sink)) ||
        (st = gcut_grid_set_edges(g, GCUT_DIR_E, east)) ||
        (st = gcut_grid_set_edges(g, GCUT_DIR_W, west)) ||
        (st = gcut_grid_set_edges(g, GCUT_DIR_S, south)) ||
        (st = gcut_grid_set_edges(g, GCUT_DIR_N, north)) ||
        (st = gcut_grid_solve(g, NULL, &info)) || (st = gcut_grid_verify(g, &cut)) ||
        (st = gcut_grid_labels(g, labels))) {
        int rc = fail(ctx, st, "grid");
        gcut_grid_destroy(g);
        gcut_context_destroy(ctx);
        return rc;
    }
    printf("gcut %s (CUDA %s): flow %lld = cut %lld, %s on %s\n", gcut_version(),
           gcut_cuda_built() ? "built in" : "not built", (long long)info.flow, (long long)cut,
           info.algo, info.device);
    int foreground = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            putchar(labels[y * W + x] ? '#' : '.');
            foreground += labels[y * W + x];
        }
        putchar('\n');
    }
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
    /* The square is 5x4 pixels: anything else means a wrong cut. */
    return foreground == 20 ? 0 : 1;
}
