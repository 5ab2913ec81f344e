/* Every range check of the readers at its limit (accepted) and one past it
 * (refused with the status and the words the reader documents), and the
 * memory budget: refusals name what and how much, and nothing is allocated
 * for a size that is refused (the image limits are tested with header-only
 * files under a 1 MiB budget, so that "at the limit" shows as the budget's
 * refusal, not as 1 GiB allocated). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hostile.h"
#include "core/memory_budget.h"

int check_hostile_temp_dir(char *dir, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, 96, "%.60s/gcut-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    return mkdtemp(dir) ? 0 : -1;
}

void check_hostile_remove_dir(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static int write_file(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    int ok = fwrite(data, 1, size, fp) == size;
    ok &= fclose(fp) == 0;
    return ok ? 0 : -1;
}

static gcut_context *budget_context(int64_t max_memory)
{
    gcut_options o;
    gcut_options_init(&o);
    o.device = GCUT_DEVICE_CPU;
    o.max_memory = max_memory;
    gcut_context *ctx = NULL;
    return gcut_context_create(&o, &ctx) == GCUT_OK ? ctx : NULL;
}

/* ---- DIMACS ----------------------------------------------------------- */

typedef struct text_case {
    const char *text;
    gcut_status want;
    const char *needle; /* in the message when refused */
} text_case;

#define ARCS3 "p max 3 1\nn 1 s\nn 3 t\n"
static const text_case graph_cases[] = {
    {ARCS3 "a 3 1 5\n", GCUT_OK, NULL},                                        /* tail = N */
    {ARCS3 "a 4 1 5\n", GCUT_E_RANGE, ":4: arc 4 -> 1: node id outside 1..3"}, /* N + 1 */
    {ARCS3 "a 1 3 5\n", GCUT_OK, NULL},                                        /* head = N */
    {ARCS3 "a 1 4 5\n", GCUT_E_RANGE, "outside 1..3"},
    {ARCS3 "a 0 1 5\n", GCUT_E_RANGE, "outside 1..3"}, /* 1 - 1 */
    {ARCS3 "a 1 0 5\n", GCUT_E_RANGE, "outside 1..3"},
    {ARCS3 "a 1 3 0\n", GCUT_OK, NULL}, /* capacity 0 */
    {ARCS3 "a 1 3 -1\n", GCUT_E_RANGE, "negative capacity -1"},
    {ARCS3 "a 1 3 2147483647\n", GCUT_OK, NULL}, /* 2^31 - 1 */
    {ARCS3 "a 1 3 2147483648\n", GCUT_E_OVERFLOW, "capacity 2147483648"},
    {"p max 3 2\nn 1 s\nn 3 t\na 1 3 2147483646\na 1 3 1\n", GCUT_OK, NULL}, /* sum 2^31-1 */
    {"p max 3 2\nn 1 s\nn 3 t\na 1 3 2147483647\na 1 3 1\n", GCUT_E_OVERFLOW, "sum to 2147483648"},
    {"p max 2 0\nn 1 s\nn 2 t\n", GCUT_OK, NULL}, /* N = 2 */
    {"p max 1 0\nn 1 s\nn 1 t\n", GCUT_E_RANGE, "N >= 2"},
    {"p max 2 -1\nn 1 s\nn 2 t\n", GCUT_E_RANGE, "M >= 0"},
    {"p max 3 1\nn 3 s\nn 1 t\na 1 3 1\n", GCUT_OK, NULL}, /* n ID = N */
    {"p max 3 1\nn 4 s\nn 1 t\na 1 3 1\n", GCUT_E_RANGE, "node id 4 outside 1..3"},
    {"p max 3 1\nn 0 s\nn 1 t\na 1 3 1\n", GCUT_E_RANGE, "node id 0 outside 1..3"},
    {ARCS3 "a 1 2 1\na 2 3 1\n", GCUT_E_FORMAT, ":5: more arcs than the 1"},     /* M + 1 */
    {"p max 3 2\nn 1 s\nn 3 t\na 1 2 1\n", GCUT_E_TRUNCATED, "1 of the 2 arcs"}, /* M - 1 */
    /* Untouched nodes: 2M + 2 + 2^20 accepted, one more refused (issue 22's
     * case 1, 'p max 100000000 1' in four lines, is far past it). */
    {"p max 1048580 1\nn 1 s\nn 2 t\na 1 2 5\n", GCUT_OK, NULL},
    {"p max 1048581 1\nn 1 s\nn 2 t\na 1 2 5\n", GCUT_E_RANGE, "at most 1048576 more (isolated)"},
    {"p max 100000000 1\nn 1 s\nn 2 t\na 1 2 5\n", GCUT_E_RANGE, "name at most 4 of the 100000000"},
};

#define GRID2 "c grid 2 1 4\np max 4 1\nn 3 s\nn 4 t\n"
static const text_case grid_cases[] = {
    {GRID2 "a 3 1 5\n", GCUT_OK, NULL},
    {GRID2 "a 2 4 5\n", GCUT_OK, NULL},                     /* node N */
    {GRID2 "a 5 1 5\n", GCUT_E_RANGE, "out of range 1..4"}, /* N + 1 */
    {GRID2 "a 0 1 5\n", GCUT_E_RANGE, "out of range 1..4"},
    {GRID2 "a 1 2 0\n", GCUT_OK, NULL},
    {GRID2 "a 1 2 -1\n", GCUT_E_RANGE, "negative capacity -1"},
    {GRID2 "a 1 2 2147483647\n", GCUT_OK, NULL},
    {GRID2 "a 1 2 2147483648\n", GCUT_E_OVERFLOW, NULL},
    {"c grid 2 1 8\np max 4 1\nn 3 s\nn 4 t\na 3 1 5\n", GCUT_OK, NULL},
    {"c grid 2 1 6\np max 4 1\nn 3 s\nn 4 t\na 3 1 5\n", GCUT_E_FORMAT, "connectivity 6"},
    {"c grid 2 1 4\np max 5 1\nn 3 s\nn 4 t\na 3 1 5\n", GCUT_E_FORMAT, "says 5 nodes"},
    {"c grid 2 1 4\np max 4 1\nn 5 s\nn 4 t\na 3 1 5\n", GCUT_E_RANGE, "not 5"},
    {"c grid 2 1 4\np max 4 2\nn 3 s\nn 4 t\na 3 1 5\n", GCUT_E_TRUNCATED, NULL},
};

static void run_text_cases(check_report *r, gcut_context *ctx, const char *dir,
                           const text_case *cases, int n, int grid)
{
    char path[160];
    snprintf(path, sizeof path, "%s/case.max", dir);
    for (int i = 0; i < n; i++) {
        const text_case *c = &cases[i];
        if (write_file(path, c->text, strlen(c->text))) {
            check_fail(r, "cannot write %s", path);
            return;
        }
        gcut_status st;
        if (grid) {
            gcut_grid *g = NULL;
            st = gcut_grid_read_dimacs(ctx, path, &g);
            gcut_grid_destroy(g);
        } else {
            gcut_graph *g = NULL;
            st = gcut_graph_read_dimacs(ctx, path, &g);
            gcut_graph_destroy(g);
        }
        char what[200];
        snprintf(what, sizeof what, "%s case %d ('%.60s...')", grid ? "grid" : "dimacs", i,
                 c->text);
        if (check_hostile_expect(r, ctx, st, c->want, c->needle, what))
            r->passed++;
    }
}

void check_hostile_dimacs_limits(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    char dir[96];
    gcut_context *ctx = budget_context(0);
    if (!ctx || check_hostile_temp_dir(dir, "limits")) {
        check_fail(r, "no context or no temporary folder");
        gcut_context_destroy(ctx);
        return;
    }
    run_text_cases(r, ctx, dir, graph_cases, (int)(sizeof graph_cases / sizeof graph_cases[0]), 0);
    run_text_cases(r, ctx, dir, grid_cases, (int)(sizeof grid_cases / sizeof grid_cases[0]), 1);
    check_hostile_remove_dir(dir);
    gcut_context_destroy(ctx);
}

/* ---- images ----------------------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

static uint8_t *put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

/* A PNG of that size, 8-bit grey, whose only data is a header: enough for
 * the reader to reach the size checks. Returns its length. */
static size_t header_only_png(uint8_t *buf, uint32_t width, uint32_t height)
{
    uint8_t *p = buf;
    memcpy(p, "\x89PNG\r\n\x1a\n", 8);
    p += 8;
    uint8_t *chunk = p;
    p = put_be32(p, 13);
    memcpy(p, "IHDR", 4);
    p = put_be32(p + 4, width);
    p = put_be32(p, height);
    *p++ = 8; /* depth */
    *p++ = 0; /* grey */
    *p++ = 0;
    *p++ = 0;
    *p++ = 0;
    p = put_be32(p, crc32_of(chunk + 4, 17));
    /* An IDAT: png_read_info stops at its start. */
    static const uint8_t zdata[] = {0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    chunk = p;
    p = put_be32(p, sizeof zdata);
    memcpy(p, "IDAT", 4);
    memcpy(p + 4, zdata, sizeof zdata);
    p += 4 + sizeof zdata;
    p = put_be32(p, crc32_of(chunk + 4, 4 + sizeof zdata));
    return (size_t)(p - buf);
}

/* A progressive JPEG's header up to its first scan (all jpeg_read_header
 * reads): SOI, SOF2 of that size with three components, SOS. */
static size_t header_only_jpeg(uint8_t *buf, uint32_t width, uint32_t height)
{
    static const uint8_t sos[] = {0xff, 0xda, 0, 12, 3, 1, 0, 2, 0, 3, 0, 0, 0, 0};
    uint8_t *p = buf;
    *p++ = 0xff, *p++ = 0xd8;
    *p++ = 0xff, *p++ = 0xc2, *p++ = 0, *p++ = 17, *p++ = 8;
    *p++ = (uint8_t)(height >> 8), *p++ = (uint8_t)height;
    *p++ = (uint8_t)(width >> 8), *p++ = (uint8_t)width;
    *p++ = 3;
    for (int c = 1; c <= 3; c++)
        *p++ = (uint8_t)c, *p++ = 0x11, *p++ = 0;
    memcpy(p, sos, sizeof sos);
    return (size_t)(p - buf) + sizeof sos;
}

typedef struct image_case {
    char kind; /* 'm' PNM, 'p' PNG, 'j' progressive JPEG */
    uint32_t width, height;
    gcut_status want;
    const char *needle;
} image_case;

/* 2^28 pixels = 16384 x 16384 = 2^28 x 1. At the limit the size check
 * passes and the 1 MiB budget refuses; one pixel row or column more and
 * the size check refuses first. */
static const image_case image_cases[] = {
    {'m', 16384, 16384, GCUT_E_NOMEM, "over the memory budget of 1.0 MiB"},
    {'m', 16384, 16385, GCUT_E_RANGE, "over the limit of 268435456 pixels"},
    {'m', 16385, 16384, GCUT_E_RANGE, "over the limit of 268435456 pixels"},
    {'p', 16384, 16384, GCUT_E_NOMEM, "over the memory budget"},
    {'p', 268435456, 1, GCUT_E_NOMEM, "over the memory budget"},
    {'p', 1, 268435456, GCUT_E_NOMEM, "over the memory budget"},
    {'p', 268435457, 1, GCUT_E_RANGE, "over the limit"},
    {'p', 16385, 16384, GCUT_E_RANGE, "over the limit"},
    /* A progressive JPEG's coefficients (2 bytes a sample) are asked for
     * with its pixels: 512 x 512 x 3 x 3 bytes is over 1 MiB, though the
     * pixels alone (768 KiB) are not. */
    {'j', 512, 512, GCUT_E_NOMEM, "a progressive JPEG of 512x512 pixels needs about 2.2 MiB"},
    {'j', 256, 256, GCUT_E_FORMAT, "malformed JPEG"},
    /* Under the budget (16 x 16 bytes), the header-only file is refused as
     * truncated or malformed after the allocation. */
    {'m', 16, 16, GCUT_E_FORMAT, "truncated"},
    {'p', 16, 16, GCUT_E_FORMAT, "malformed PNG"},
};

void check_hostile_image_limits(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    char dir[96], path[160];
    gcut_context *ctx = budget_context((int64_t)1 << 20);
    if (!ctx || check_hostile_temp_dir(dir, "images")) {
        check_fail(r, "no context or no temporary folder");
        gcut_context_destroy(ctx);
        return;
    }
    snprintf(path, sizeof path, "%s/header", dir);
    for (size_t i = 0; i < sizeof image_cases / sizeof image_cases[0]; i++) {
        const image_case *c = &image_cases[i];
        uint8_t buf[128];
        size_t n;
        if (c->kind == 'm')
            n = (size_t)snprintf((char *)buf, sizeof buf, "P5\n%u %u\n255\n", c->width, c->height);
        else if (c->kind == 'j')
            n = header_only_jpeg(buf, c->width, c->height);
        else
            n = header_only_png(buf, c->width, c->height);
        if (write_file(path, buf, n)) {
            check_fail(r, "cannot write %s", path);
            break;
        }
        gcut_image *im = NULL;
        gcut_status st = gcut_image_load(ctx, path, &im);
        gcut_image_destroy(im);
        char what[96];
        snprintf(what, sizeof what, "%s %ux%u",
                 c->kind == 'm'   ? "PGM"
                 : c->kind == 'j' ? "JPEG"
                                  : "PNG",
                 c->width, c->height);
        if (check_hostile_expect(r, ctx, st, c->want, c->needle, what))
            r->passed++;
    }
    check_hostile_remove_dir(dir);
    gcut_context_destroy(ctx);
}

/* ---- the memory budget ------------------------------------------------ */

void check_hostile_memory_budget(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    gcut_context *small = budget_context(100), *dflt = budget_context(0);
    gcut_context *neg = budget_context(-1);
    if (!small || !dflt || neg) {
        check_fail(r, "contexts: budget 100 %s, default %s, -1 %s", small ? "made" : "refused",
                   dflt ? "made" : "refused", neg ? "made (should be refused)" : "refused");
        goto done;
    }
    /* At the budget, and one byte past it. */
    if (check_hostile_expect(r, small, gcut__memory_check(small, "x", 100), GCUT_OK, NULL,
                             "100 bytes in a budget of 100"))
        r->passed++;
    if (check_hostile_expect(r, small, gcut__memory_check(small, "the thing", 101), GCUT_E_NOMEM,
                             "the thing needs about 101 bytes, over the memory budget of 100 "
                             "bytes (the max_memory option)",
                             "101 bytes in a budget of 100"))
        r->passed++;
    /* Sizes from hostile headers saturate instead of wrapping. */
    if (gcut__memory_mul_add(INT64_MAX / 2, 3, 0) != INT64_MAX ||
        gcut__memory_mul_add(INT64_MAX / 2, 2, 2) != INT64_MAX ||
        gcut__memory_mul_add(3, 4, 5) != 17)
        check_fail(r, "gcut__memory_mul_add does not saturate");
    else
        r->passed++;
    /* The default is the machine's available memory. */
    int64_t avail = gcut__memory_available(), budget = gcut__memory_budget(dflt);
    if (avail <= 0 || budget <= 0)
        check_fail(r, "default budget %lld, available %lld", (long long)budget, (long long)avail);
    else
        r->passed++;
    /* The graph and the grid ask before allocating. */
    const int32_t tail[] = {0, 1}, head[] = {1, 2}, cap[] = {3, 4};
    gcut_graph *g = NULL;
    if (check_hostile_expect(
            r, small, gcut_graph_create_from_arcs(small, 3, 2, tail, head, cap, 0, 2, &g),
            GCUT_E_NOMEM, "a graph of 3 nodes and 2 arcs needs about", "a graph over the budget"))
        r->passed++;
    gcut_graph_destroy(g);
    g = NULL;
    if (check_hostile_expect(r, dflt,
                             gcut_graph_create_from_arcs(dflt, 3, 2, tail, head, cap, 0, 2, &g),
                             GCUT_OK, NULL, "a graph in the default budget"))
        r->passed++;
    gcut_graph_destroy(g);
    gcut_grid *grid = NULL;
    if (check_hostile_expect(r, small, gcut_grid_create(small, 100, 100, 8, &grid), GCUT_E_NOMEM,
                             "grid: 100x100 pixels, 8-connected, needs about",
                             "a grid over the budget"))
        r->passed++;
    gcut_grid_destroy(grid);
done:
    gcut_context_destroy(small);
    gcut_context_destroy(dflt);
    gcut_context_destroy(neg);
}
