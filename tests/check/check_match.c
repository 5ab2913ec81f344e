/* Matching solvers against an independent matcher (check_match.h). */
#include "check_match.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_rng.h"

/* ---- instances ------------------------------------------------------------ */

void check_match_entries_free(check_match_entries *e)
{
    free(e->row);
    free(e->col);
    e->row = e->col = NULL;
}

static int push(check_match_entries *e, int64_t *room, int32_t r, int32_t c)
{
    if (e->nnz == *room) {
        int64_t bigger = *room * 2 + 16;
        int32_t *nr = realloc(e->row, (size_t)bigger * sizeof *nr);
        if (!nr)
            return -1;
        e->row = nr;
        int32_t *nc = realloc(e->col, (size_t)bigger * sizeof *nc);
        if (!nc)
            return -1;
        e->col = nc;
        *room = bigger;
    }
    e->row[e->nnz] = r;
    e->col[e->nnz] = c;
    e->nnz++;
    return 0;
}

enum {
    SHAPE_SPARSE,
    SHAPE_EMPTY_LINES,
    SHAPE_PERFECT,
    SHAPE_DEFICIENT,
    SHAPE_HUB_ROW,
    SHAPE_WIDE,
    SHAPE_TALL,
    SHAPE_DUPLICATES,
    SHAPE_DENSE,
    SHAPE_LADDER,
    SHAPE_EMPTY,
    SHAPES
};

static const char *const shape_names[SHAPES] = {"sparse",  "empty-lines", "perfect", "deficient",
                                                "hub-row", "wide",        "tall",    "duplicates",
                                                "dense",   "ladder",      "empty"};

int check_match_instance(uint64_t seed, int index, check_match_entries *out)
{
    memset(out, 0, sizeof *out);
    rng g = {seed * 0x9e3779b97f4a7c15ULL + 0x3a7c0000u + (uint64_t)index};
    const int shape = index % SHAPES;
    const int32_t side =
        index % 7 == 6 ? (int32_t)rng_range(&g, 200, 3000) : (int32_t)rng_range(&g, 1, 60);
    int32_t rows = side, cols = (int32_t)rng_range(&g, side / 2 + 1, side * 3 / 2 + 1);
    if (shape == SHAPE_WIDE)
        cols = side * (int32_t)rng_range(&g, 3, 8);
    if (shape == SHAPE_TALL)
        rows = side * (int32_t)rng_range(&g, 3, 8);
    if (shape == SHAPE_PERFECT || shape == SHAPE_LADDER)
        cols = rows;
    if (shape == SHAPE_DENSE)
        rows = side < 80 ? side : 80, cols = (int32_t)rng_range(&g, 1, 80);
    int64_t room = 0;
    int fail = 0;
    const int64_t avg = rng_range(&g, 1, 4); /* edges per row, about */
    switch (shape) {
    case SHAPE_EMPTY: {
        int kind = (int)rng_below(&g, 3);
        rows = kind == 0 ? 0 : rows;
        cols = kind == 1 ? 0 : cols;
        break; /* no edges either way */
    }
    case SHAPE_PERFECT: {
        /* A hidden permutation, then noise: a perfect matching exists. */
        int32_t *perm = malloc((size_t)rows * sizeof *perm);
        if (!perm)
            return -1;
        for (int32_t i = 0; i < rows; i++)
            perm[i] = i;
        for (int32_t i = rows - 1; i > 0; i--) {
            int32_t j = (int32_t)rng_below(&g, i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int32_t i = 0; i < rows && !fail; i++)
            fail = push(out, &room, i, perm[i]);
        free(perm);
        for (int64_t k = 0; k < (int64_t)rows * avg && !fail; k++)
            fail = push(out, &room, (int32_t)rng_below(&g, rows), (int32_t)rng_below(&g, cols));
        break;
    }
    case SHAPE_DEFICIENT: {
        /* Half the rows see only a few columns: Hall's condition fails there. */
        int32_t narrow = cols / 4 + 1;
        for (int32_t r = 0; r < rows && !fail; r++)
            for (int64_t k = 0; k < avg + 1 && !fail; k++)
                fail = push(out, &room, r,
                            (int32_t)(r % 2 ? rng_below(&g, narrow) : rng_below(&g, cols)));
        break;
    }
    case SHAPE_HUB_ROW: {
        int32_t hub = (int32_t)rng_below(&g, rows);
        for (int32_t c = 0; c < cols && !fail; c++)
            fail = push(out, &room, hub, c);
        for (int64_t k = 0; k < (int64_t)rows * avg && !fail; k++)
            fail = push(out, &room, (int32_t)rng_below(&g, rows), (int32_t)rng_below(&g, cols));
        break;
    }
    case SHAPE_DENSE:
        for (int32_t r = 0; r < rows && !fail; r++)
            for (int32_t c = 0; c < cols && !fail; c++)
                if (rng_below(&g, 4))
                    fail = push(out, &room, r, c);
        break;
    case SHAPE_LADDER: {
        /* Row i sees columns i and i+1, and the greedy start is lured off
         * the perfect matching by a few extra edges back: the augmenting
         * paths run the ladder's length. */
        for (int32_t r = 0; r < rows && !fail; r++) {
            fail = push(out, &room, r, r);
            if (!fail && r + 1 < cols)
                fail = push(out, &room, r, r + 1);
        }
        for (int32_t k = 0; k < 3 && rows > 2 && !fail; k++)
            fail = push(out, &room, rows - 1, (int32_t)rng_below(&g, rows));
        /* Sometimes one column less to match: deficient by one. */
        if (rng_below(&g, 2) && cols > 1) {
            cols--;
            int64_t kept = 0;
            for (int64_t i = 0; i < out->nnz; i++)
                if (out->col[i] < cols)
                    out->row[kept] = out->row[i], out->col[kept++] = out->col[i];
            out->nnz = kept;
        }
        break;
    }
    default: {
        /* Random edges; EMPTY_LINES leaves a third of the rows and columns
         * bare, DUPLICATES repeats most entries. */
        const int bare = shape == SHAPE_EMPTY_LINES;
        for (int64_t k = 0; k < (int64_t)rows * avg && !fail; k++) {
            int32_t r = (int32_t)rng_below(&g, rows), c = (int32_t)rng_below(&g, cols);
            if (bare && (r % 3 == 0 || c % 3 == 1))
                continue;
            int copies = shape == SHAPE_DUPLICATES ? (int)rng_range(&g, 1, 4) : 1;
            for (int j = 0; j < copies && !fail; j++)
                fail = push(out, &room, r, c);
        }
        break;
    }
    }
    out->rows = rows;
    out->cols = cols;
    snprintf(out->name, sizeof out->name, "%s %dx%d nnz=%lld (seed %llu index %d)",
             shape_names[shape], rows, cols, (long long)out->nnz, (unsigned long long)seed, index);
    if (fail) {
        check_match_entries_free(out);
        return -1;
    }
    return 0;
}

/* A larger instance: random (uniform or power-law row degrees) or a mesh
 * pattern (5- or 7-point Laplacian) with a tenth of its entries removed. */
int check_match_large_instance(uint64_t seed, int index, check_match_entries *e)
{
    memset(e, 0, sizeof *e);
    rng g = {seed * 0x9e3779b97f4a7c15ULL + 0x6b0000u + (uint64_t)index};
    const int kind = (index / 5) % 4;
    int64_t room = 0;
    if (kind < 2) {
        e->rows = (int32_t)rng_range(&g, 1000, 30000);
        e->cols = (int32_t)rng_range(&g, e->rows / 2, e->rows * 2);
        room = (int64_t)e->rows * 4;
    } else {
        const int32_t side =
            kind == 2 ? (int32_t)rng_range(&g, 30, 250) : (int32_t)rng_range(&g, 8, 40);
        e->rows = e->cols = kind == 2 ? side * side : side * side * side;
        room = (int64_t)e->rows * 7;
    }
    e->row = malloc((size_t)room * sizeof *e->row);
    e->col = malloc((size_t)room * sizeof *e->col);
    if (!e->row || !e->col)
        return -1;
    if (kind < 2) {
        for (int64_t k = 0; k < room; k++) {
            /* Power-law: a row drawn as the square of a uniform fraction
             * lands on low ids far more often. */
            double f = (double)rng_below(&g, 1 << 30) / (double)(1 << 30);
            e->row[k] =
                kind == 0 ? (int32_t)rng_below(&g, e->rows) : (int32_t)(f * f * f * e->rows);
            e->col[k] = (int32_t)rng_below(&g, e->cols);
        }
        e->nnz = room;
    } else {
        const int32_t side =
            kind == 2 ? (int32_t)(0.5 + sqrt(e->rows)) : (int32_t)(0.5 + cbrt(e->rows));
        const int dims = kind == 2 ? 2 : 3;
        for (int32_t v = 0; v < e->rows; v++) {
            int32_t coord[3] = {v % side, (v / side) % side, dims == 3 ? v / (side * side) : 0};
            int32_t stride[3] = {1, side, side * side};
            for (int d = -1; d < 2 * dims; d++) {
                int32_t w = v;
                if (d >= 0) {
                    int axis = d / 2, step = d % 2 ? 1 : -1;
                    if (coord[axis] + step < 0 || coord[axis] + step >= side)
                        continue;
                    w = v + step * stride[axis];
                }
                if (rng_below(&g, 10) == 0)
                    continue; /* removed: the matching turns deficient */
                e->row[e->nnz] = v;
                e->col[e->nnz++] = w;
            }
        }
    }
    snprintf(e->name, sizeof e->name, "%s %dx%d nnz=%lld (seed %llu index %d)",
             kind == 0   ? "uniform"
             : kind == 1 ? "power-law"
             : kind == 2 ? "mesh2d"
                         : "mesh3d",
             e->rows, e->cols, (long long)e->nnz, (unsigned long long)seed, index);
    return 0;
}

/* ---- the reference -------------------------------------------------------- */

/* Kuhn's algorithm over an adjacency list of its own: from each row, a
 * depth-first search for a free column along alternating paths, with an
 * explicit stack. */
int32_t check_match_reference(const check_match_entries *e)
{
    const int32_t rows = e->rows, cols = e->cols;
    int32_t *start = calloc((size_t)rows + 2, sizeof *start);
    int32_t *adj = malloc((size_t)(e->nnz + 1) * sizeof *adj);
    int32_t *mate_col = malloc(((size_t)cols + 1) * sizeof *mate_col); /* column -> row */
    int32_t *seen = malloc(((size_t)cols + 1) * sizeof *seen);         /* epoch per column */
    int32_t *stack_row = malloc(((size_t)rows + 1) * sizeof *stack_row);
    int32_t *stack_pos = malloc(((size_t)rows + 1) * sizeof *stack_pos);
    int32_t size = -1;
    if (!start || !adj || !mate_col || !seen || !stack_row || !stack_pos)
        goto done;
    for (int64_t i = 0; i < e->nnz; i++)
        start[e->row[i] + 2]++;
    for (int32_t r = 0; r < rows; r++)
        start[r + 2] += start[r + 1];
    for (int64_t i = 0; i < e->nnz; i++)
        adj[start[e->row[i] + 1]++] = e->col[i];
    for (int32_t c = 0; c < cols; c++)
        mate_col[c] = -1, seen[c] = -1;
    /* A plain greedy pass first: each row takes its first free column. */
    size = 0;
    uint8_t *done_row = calloc((size_t)rows + 1, 1);
    if (!done_row) {
        size = -1;
        goto done;
    }
    for (int32_t s = 0; s < rows; s++)
        for (int32_t k = start[s]; k < start[s + 1] && !done_row[s]; k++)
            if (mate_col[adj[k]] < 0)
                mate_col[adj[k]] = s, done_row[s] = 1, size++;
    /* Columns seen by a failed search stay dead until the matching changes
     * (an augmentation starts a new epoch). */
    int32_t epoch = 0;
    for (int32_t s = 0; s < rows; s++) {
        if (done_row[s])
            continue;
        int32_t top = 0;
        stack_row[0] = s;
        stack_pos[0] = start[s];
        while (top >= 0) {
            const int32_t r = stack_row[top];
            if (stack_pos[top] == start[r + 1]) {
                top--;
                continue;
            }
            const int32_t c = adj[stack_pos[top]];
            if (seen[c] == epoch) {
                stack_pos[top]++;
                continue;
            }
            seen[c] = epoch;
            if (mate_col[c] < 0) {
                /* Augment: each row on the stack takes the column it tried. */
                for (int32_t k = top; k >= 0; k--)
                    mate_col[adj[stack_pos[k]]] = stack_row[k];
                size++;
                epoch++;
                break;
            }
            top++;
            stack_row[top] = mate_col[c];
            stack_pos[top] = start[mate_col[c]];
        }
    }
    free(done_row);
done:
    free(start);
    free(adj);
    free(mate_col);
    free(seen);
    free(stack_row);
    free(stack_pos);
    return size;
}

/* ---- one solve, checked --------------------------------------------------- */

int check_match_solve(check_report *r, gcut_bipartite *b, const char *algo, int32_t expected,
                      const char *what, const char *device_name)
{
    const int32_t rows = gcut_bipartite_rows(b), cols = gcut_bipartite_cols(b);
    int32_t *rm = malloc(((size_t)rows + 1) * sizeof *rm), *cm = malloc(((size_t)cols + 1) * 4);
    uint8_t *rc = malloc((size_t)rows + 1), *cc = malloc((size_t)cols + 1);
    uint8_t *hit = calloc((size_t)cols + 1, 1);
    int32_t *erow = NULL, *ecol = NULL, *first = NULL;
    int bad = 1;
    gcut_match_info info;
    if (!rm || !cm || !rc || !cc || !hit) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    /* The verifier must not learn from a solve: its context is the graph's. */
    gcut_status st = gcut_match(b, algo, rm, cm, rc, cc, &info);
    if (st) {
        check_fail(r, "%s: %s failed: %s", what, algo, gcut_status_str(st));
        goto done;
    }
    /* Independently: a matching of edges, consistent both ways. The
     * graph's edges come in (row, col) order: each row's are a range. */
    const int32_t m = gcut_bipartite_edges(b);
    erow = malloc(((size_t)m + 1) * sizeof *erow);
    ecol = malloc(((size_t)m + 1) * sizeof *ecol);
    first = calloc((size_t)rows + 2, sizeof *first);
    if (!erow || !ecol || !first) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    for (int32_t e = 0; e < m; e++) {
        gcut_bipartite_edge(b, e, &erow[e], &ecol[e], NULL);
        first[erow[e] + 1]++;
    }
    for (int32_t row = 0; row < rows; row++)
        first[row + 1] += first[row];
    int32_t pairs = 0, covered = 0;
    for (int32_t row = 0; row < rows; row++) {
        int32_t c = rm[row], found = 0;
        if (c < 0)
            continue;
        for (int32_t e = first[row]; e < first[row + 1] && !found; e++)
            found = ecol[e] == c;
        if (c >= cols || hit[c] || cm[c] != row || !found) {
            check_fail(r, "%s: %s: row %d's pair %d is not a matching edge", what, algo, row, c);
            goto done;
        }
        hit[c] = 1;
        pairs++;
    }
    for (int32_t c = 0; c < cols; c++)
        if (!hit[c] && cm[c] != -1) {
            check_fail(r, "%s: %s: column %d claims row %d alone", what, algo, c, cm[c]);
            goto done;
        }
    /* A cover of every edge, as large as the matching. */
    for (int32_t e = 0; e < m; e++)
        if (!rc[erow[e]] && !cc[ecol[e]]) {
            check_fail(r, "%s: %s: edge (%d, %d) uncovered", what, algo, erow[e], ecol[e]);
            goto done;
        }
    for (int32_t row = 0; row < rows; row++)
        covered += rc[row] != 0;
    for (int32_t c = 0; c < cols; c++)
        covered += cc[c] != 0;
    int32_t verified = -1;
    if (pairs != expected || covered != pairs || info.size != pairs) {
        check_fail(r, "%s: %s: %d pairs (info %d), cover %d, expected %d", what, algo, pairs,
                   info.size, covered, expected);
    } else if (gcut_match_verify(b, rm, cm, rc, cc, &verified) || verified != pairs) {
        check_fail(r, "%s: %s: gcut_match_verify refused a good answer", what, algo);
    } else if (strcmp(info.algo, algo) != 0 ||
               (device_name && strcmp(info.device, device_name) != 0) ||
               (!device_name && strcmp(info.device, "cpu") != 0) || info.initial_size > pairs) {
        check_fail(r, "%s: %s: info says algo %s on %s, greedy %d", what, algo, info.algo,
                   info.device, info.initial_size);
    } else {
        bad = 0;
    }
done:
    free(rm);
    free(cm);
    free(rc);
    free(cc);
    free(hit);
    free(erow);
    free(ecol);
    free(first);
    return bad;
}

static const char *const cpu_algos[] = {"pr", "hk"};

void check_match_cpu_vs_reference(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    for (int index = 0; index < count; index++) {
        check_match_entries e;
        if (check_match_instance(seed, index, &e)) {
            check_fail(r, "instance %d: out of memory", index);
            continue;
        }
        int32_t expected = check_match_reference(&e);
        gcut_bipartite *b = NULL;
        if (gcut_bipartite_create_from_edges(ctx, e.rows, e.cols, e.nnz, e.row, e.col, NULL, &b)) {
            check_fail(r, "%s: %s", e.name, gcut_last_error(ctx));
        } else {
            int bad = 0;
            for (int a = 0; a < 2; a++)
                bad |= check_match_solve(r, b, cpu_algos[a], expected, e.name, NULL);
            /* The caller-array entry point gives the same size. */
            gcut_match_info info;
            if (!bad && (gcut_match_arrays(ctx, e.rows, e.cols, e.nnz, e.row, e.col, "hk", NULL,
                                           NULL, NULL, NULL, &info) ||
                         info.size != expected)) {
                check_fail(r, "%s: gcut_match_arrays gave %d, expected %d", e.name, info.size,
                           expected);
                bad = 1;
            }
            if (!bad)
                r->passed++;
        }
        gcut_bipartite_destroy(b);
        check_match_entries_free(&e);
        /* Every 25th: a larger graph, pr and hk against each other (each
         * answer's cover proves it maximum). */
        if (index % 25 != 24)
            continue;
        b = NULL;
        gcut_match_info info;
        if (check_match_large_instance(seed, index, &e) ||
            gcut_bipartite_create_from_edges(ctx, e.rows, e.cols, e.nnz, e.row, e.col, NULL, &b) ||
            gcut_match(b, "hk", NULL, NULL, NULL, NULL, &info))
            check_fail(r, "large instance %d: %s", index, gcut_last_error(ctx));
        else if (!check_match_solve(r, b, "pr", info.size, e.name, NULL))
            r->passed++;
        gcut_bipartite_destroy(b);
        check_match_entries_free(&e);
    }
    gcut_context_destroy(ctx);
}

/* ---- the shared matrices -------------------------------------------------- */

const char *check_match_matrices_dir(void)
{
    static char found[512];
    const char *env = getenv("GCUT_MATRICES");
    const char *candidates[] = {
        env,
#ifdef GCUT_CHECK_SOURCE_DIR
        GCUT_CHECK_SOURCE_DIR "/../shared/data/matrices",
        GCUT_CHECK_SOURCE_DIR "/../../shared/data/matrices",
        GCUT_CHECK_SOURCE_DIR "/../../.devshared/data/matrices",
#endif
        "../shared/data/matrices",
        "../../shared/data/matrices",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        DIR *d = opendir(candidates[i]);
        if (d) {
            closedir(d);
            snprintf(found, sizeof found, "%s", candidates[i]);
            return found;
        }
    }
    return NULL;
}

void check_match_matrices(check_report *r, int count, uint64_t seed)
{
    (void)seed;
    const char *dir = check_match_matrices_dir();
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!ctx || !d) {
        if (!ctx)
            check_fail(r, "no context");
        else
            r->skipped++; /* the shared data is absent here */
        gcut_context_destroy(ctx);
        return;
    }
    struct dirent *ent;
    int done = 0;
    while ((ent = readdir(d)) && done < count) {
        size_t n = strlen(ent->d_name);
        if (n < 5 || strcmp(ent->d_name + n - 4, ".mtx") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        gcut_bipartite *b = NULL;
        if (gcut_bipartite_read(ctx, path, GCUT_BIPARTITE_NO_COSTS, &b)) {
            check_fail(r, "%s", gcut_last_error(ctx));
            continue;
        }
        /* The reference reads the graph's own (merged) edges. */
        check_match_entries e;
        memset(&e, 0, sizeof e);
        e.rows = gcut_bipartite_rows(b);
        e.cols = gcut_bipartite_cols(b);
        e.nnz = gcut_bipartite_edges(b);
        e.row = malloc((size_t)(e.nnz + 1) * sizeof *e.row);
        e.col = malloc((size_t)(e.nnz + 1) * sizeof *e.col);
        if (!e.row || !e.col) {
            check_fail(r, "%s: out of memory", path);
        } else {
            for (int32_t k = 0; k < e.nnz; k++)
                gcut_bipartite_edge(b, k, &e.row[k], &e.col[k], NULL);
            int32_t expected = check_match_reference(&e);
            int bad = 0;
            for (int a = 0; a < 2; a++)
                bad |= check_match_solve(r, b, cpu_algos[a], expected, ent->d_name, NULL);
            if (!bad)
                r->passed++;
        }
        check_match_entries_free(&e);
        gcut_bipartite_destroy(b);
        done++;
    }
    closedir(d);
    gcut_context_destroy(ctx);
}

/* ---- the verifier refuses ------------------------------------------------- */

void check_match_verify_refuses(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    /* A 3x3 path: rows 0-2, edges (0,0) (0,1) (1,1) (2,1) (2,2). */
    const int32_t ri[] = {0, 0, 1, 2, 2}, ci[] = {0, 1, 1, 1, 2};
    gcut_bipartite *b = NULL;
    if (!ctx || gcut_bipartite_create_from_edges(ctx, 3, 3, 5, ri, ci, NULL, &b)) {
        check_fail(r, "cannot build the graph");
        gcut_context_destroy(ctx);
        return;
    }
    struct {
        int32_t rm[3];
        uint8_t rc[3], cc[3];
        const char *phrase;
    } cases[] = {
        {{0, 1, 2}, {0, 0, 0}, {1, 1, 1}, NULL},                  /* good: perfect */
        {{0, 0, 2}, {0, 0, 0}, {1, 1, 1}, "column 1 is matched"}, /* a column twice */
        {{0, 2, 1}, {0, 0, 0}, {1, 1, 1}, "not an edge"},
        {{0, 7, 2}, {0, 0, 0}, {1, 1, 1}, "not a column"},
        {{0, 1, 2}, {0, 0, 0}, {1, 0, 1}, "not covered"},
        {{0, 1, -1}, {0, 0, 0}, {1, 1, 1}, "not shown maximum"}, /* cover too big */
        {{0, 1, -1}, {0, 0, 0}, {1, 1, 0}, "not covered"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gcut_status st = gcut_match_verify(b, cases[i].rm, NULL, cases[i].rc, cases[i].cc, NULL);
        if (!cases[i].phrase
                ? st != GCUT_OK
                : st != GCUT_E_VERIFY || !strstr(gcut_last_error(ctx), cases[i].phrase))
            check_fail(r, "verify case %zu: %s (%s)", i, gcut_status_str(st), gcut_last_error(ctx));
        else
            r->passed++;
    }
    /* col_match disagreeing with row_match. */
    const int32_t rm[] = {0, 1, 2}, cm[] = {0, 2, 1};
    const uint8_t rc[] = {0, 0, 0}, cc[] = {1, 1, 1};
    if (gcut_match_verify(b, rm, cm, rc, cc, NULL) != GCUT_E_VERIFY)
        check_fail(r, "a col_match that disagrees was taken");
    else
        r->passed++;
    gcut_bipartite_destroy(b);
    gcut_context_destroy(ctx);
}
