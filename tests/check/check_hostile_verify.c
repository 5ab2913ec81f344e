/* The proof checkers catch tampered answers: on solved random graphs and
 * grids, a cut of another capacity than the flow, an arc flow over its
 * capacity or under zero with conservation kept, broken conservation, and
 * a wrong reported value each give GCUT_E_VERIFY naming the fault; undoing
 * the change makes the proof check again. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_graph.h"
#include "check_grid.h"
#include "check_hostile.h"
#include "core/context.h"
#include "graph/csr.h"
#include "graph/grid.h"

int check_hostile_expect(check_report *r, gcut_context *ctx, gcut_status got, gcut_status want,
                         const char *needle, const char *what)
{
    const char *msg = gcut_last_error(ctx);
    if (got != want) {
        check_fail(r, "%s: status '%s', expected '%s' (%s)", what, gcut_status_str(got),
                   gcut_status_str(want), msg);
        return 0;
    }
    if (want != GCUT_OK && needle && !strstr(msg, needle)) {
        check_fail(r, "%s: message '%s' lacks '%s'", what, msg, needle);
        return 0;
    }
    return 1;
}

/* The arc v -> u of the graph, or -1. */
static int32_t find_arc(const gcut_graph *g, int32_t u, int32_t v)
{
    for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++)
        if (g->out_head[a] == v)
            return a;
    return -1;
}

/* One tampering: verify must fail with `needle`, then pass once undone. */
static int tampered(check_report *r, gcut_graph *g, const char *needle, const char *what, int index)
{
    char name[160];
    snprintf(name, sizeof name, "graph %d: %s", index, what);
    return check_hostile_expect(r, g->ctx, gcut_graph_verify(g, NULL), GCUT_E_VERIFY, needle, name);
}

static int restored(check_report *r, gcut_graph *g, const char *what, int index)
{
    char name[160];
    snprintf(name, sizeof name, "graph %d: after undoing %s", index, what);
    return check_hostile_expect(r, g->ctx, gcut_graph_verify(g, NULL), GCUT_OK, NULL, name);
}

static void tamper_graph(check_report *r, gcut_graph *g, int index)
{
    int ok = 1;
    /* The reported value. */
    g->flow_value += 1;
    ok &= tampered(r, g, "reported flow", "a value one above the flow", index);
    g->flow_value -= 1;
    ok &= restored(r, g, "the value", index);

    /* A cut of another capacity: one node moved across whose move changes
     * the capacity (the flow itself stays feasible and maximum). */
    int64_t cut = 0, moved = 0;
    gcut_graph_cut_capacity(g, g->side, &cut);
    for (int32_t v = 0; v < g->n && ok; v++) {
        if (v == g->source || v == g->sink)
            continue;
        g->side[v] ^= 1;
        gcut_graph_cut_capacity(g, g->side, &moved);
        if (moved != cut) {
            ok &= tampered(r, g, "cut's capacity", "a node moved across the cut", index);
            g->side[v] ^= 1;
            ok &= restored(r, g, "the cut", index);
            break;
        }
        g->side[v] ^= 1;
    }

    /* Over capacity (or under zero) with conservation kept: one more unit
     * around a two-arc cycle u -> v -> u, one of whose arcs is full (or,
     * one less around it where one is empty). Only the capacity check can
     * see it. */
    for (int32_t a = 0; a < g->m && ok; a++) {
        int32_t b = find_arc(g, g->out_head[a], g->arc_tail[a]);
        if (b < 0)
            continue;
        int up = g->flow[a] == g->out_cap[a] && g->flow[b] < INT32_MAX;
        int down = g->flow[a] == 0 && g->flow[b] > INT32_MIN;
        if (!up && !down)
            continue;
        int step = up ? 1 : -1;
        g->flow[a] += step;
        g->flow[b] += step;
        ok &=
            tampered(r, g, "carries", up ? "a full arc one over" : "an empty arc one under", index);
        g->flow[a] -= step;
        g->flow[b] -= step;
        ok &= restored(r, g, "the cycle", index);
        break;
    }

    /* Conservation: one unit less on an arc between two inner nodes. */
    for (int32_t a = 0; a < g->m && ok; a++) {
        int32_t u = g->arc_tail[a], v = g->out_head[a];
        if (g->flow[a] == 0 || u == g->source || u == g->sink || v == g->source || v == g->sink)
            continue;
        g->flow[a] -= 1;
        ok &= tampered(r, g, "receives", "an inner arc one unit short", index);
        g->flow[a] += 1;
        ok &= restored(r, g, "the arc", index);
        break;
    }
    if (ok)
        r->passed++;
}

void check_hostile_graph_tamper(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    /* A graph with a full two-arc cycle and an inner arc with flow, so that
     * every tampering is planted at least once whatever the random ones
     * hold: s -> a -> b -> t and a <-> b. */
    const int32_t tail[] = {0, 1, 2, 2}, head[] = {1, 2, 3, 1}, cap[] = {5, 3, 9, 4};
    for (int i = -1; i < count; i++) {
        gcut_graph *g = NULL;
        check_graph_arcs arcs = {0};
        gcut_status st;
        if (i < 0) {
            st = gcut_graph_create_from_arcs(ctx, 4, 4, tail, head, cap, 0, 3, &g);
        } else {
            if (check_graph_random_arcs(seed, i, &arcs)) {
                check_fail(r, "graph %d: no arcs", i);
                continue;
            }
            st = gcut_graph_create_from_arcs(ctx, arcs.n, arcs.m, arcs.tail, arcs.head, arcs.cap,
                                             arcs.source, arcs.sink, &g);
        }
        const char *algo = i % 2 ? "bk" : "prf";
        if (!st)
            st = gcut_graph_solve(g, algo, GCUT_GRAPH_SOLVE_FLOW, NULL);
        if (!st)
            st = gcut_graph_verify(g, NULL);
        if (st)
            check_fail(r, "graph %d (%s): %s", i, algo, gcut_last_error(ctx));
        else
            tamper_graph(r, g, i);
        gcut_graph_destroy(g);
        check_graph_arcs_free(&arcs);
    }
    gcut_context_destroy(ctx);
}

/* ---- grids ------------------------------------------------------------ */

static int grid_expect(check_report *r, gcut_grid *g, gcut_status want, const char *needle,
                       const char *what, int index)
{
    char name[160];
    snprintf(name, sizeof name, "grid %d: %s", index, what);
    return check_hostile_expect(r, g->ctx, gcut_grid_verify(g, NULL), want, needle, name);
}

static void tamper_grid(check_report *r, gcut_grid *g, int index)
{
    int ok = 1;
    g->flow += 1;
    ok &= grid_expect(r, g, GCUT_E_VERIFY, "not the reported", "a value one above the flow", index);
    g->flow -= 1;
    ok &= grid_expect(r, g, GCUT_OK, NULL, "the value restored", index);

    /* A residual one above: the pair's residuals no longer sum to the
     * two capacities. */
    int32_t p = gcut__grid_node(g, 0, 0);
    int d = g->width > 1 ? GCUT_DIR_E : g->height > 1 ? GCUT_DIR_S : -1;
    if (d >= 0 && ok) {
        g->res[d][p] += 1;
        ok &= grid_expect(r, g, GCUT_E_VERIFY, "(0, 0)", "a residual one above", index);
        g->res[d][p] -= 1;
        ok &= grid_expect(r, g, GCUT_OK, NULL, "the residual restored", index);
    }

    /* A label moved across that changes the cut's capacity. */
    int64_t cut = 0, moved = 0;
    size_t n = (size_t)g->width * (size_t)g->height;
    uint8_t *labels = malloc(n);
    if (!labels) {
        check_fail(r, "grid %d: out of memory", index);
        return;
    }
    gcut_grid_labels(g, labels);
    gcut_grid_cut_capacity(g, labels, &cut);
    for (int y = 0; y < g->height && ok; y++)
        for (int x = 0; x < g->width && ok; x++) {
            size_t k = (size_t)y * g->width + x;
            int32_t i = gcut__grid_node(g, x, y);
            labels[k] ^= 1;
            gcut_grid_cut_capacity(g, labels, &moved);
            labels[k] ^= 1;
            if (moved == cut)
                continue;
            g->label[i] ^= 1;
            ok &= grid_expect(r, g, GCUT_E_VERIFY, "cut's capacity", "a pixel moved across the cut",
                              index);
            g->label[i] ^= 1;
            ok &= grid_expect(r, g, GCUT_OK, NULL, "the label restored", index);
            y = g->height;
            break;
        }
    free(labels);
    if (ok)
        r->passed++;
}

void check_hostile_grid_tamper(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    for (int i = 0; i < count; i++) {
        gcut_grid *g = NULL;
        gcut_status st = check_grid_random(ctx, seed, i, &g);
        if (!st)
            st = gcut_grid_solve(g, "bk", NULL);
        if (!st)
            st = gcut_grid_verify(g, NULL);
        if (st)
            check_fail(r, "grid %d: %s", i, gcut_last_error(ctx));
        else
            tamper_grid(r, g, i);
        gcut_grid_destroy(g);
    }
    gcut_context_destroy(ctx);
}
