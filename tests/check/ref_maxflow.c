/* Dinic's max-flow: BFS levels from s in the residual graph, then blocking
 * flows along level-increasing arcs, until t is unreachable. Arcs are stored
 * in pairs (2k forward, 2k+1 its reverse) with residual capacities. */
#include "ref_maxflow.h"

#include <stdlib.h>
#include <string.h>

struct ref_graph {
    int n;
    int narcs, arc_room;
    int *head;    /* first arc out of each node, -1 = none */
    int *next;    /* next arc out of the same tail */
    int *to;      /* head node of each arc */
    int64_t *res; /* residual capacity of each arc */
    int *side;    /* after maxflow: 1 = reachable from s */
    int *to_sink; /* after maxflow: 1 = can reach t */
};

ref_graph *ref_graph_create(int n)
{
    if (n < 1)
        return NULL;
    ref_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->n = n;
    g->head = malloc((size_t)n * sizeof *g->head);
    g->side = calloc((size_t)n, sizeof *g->side);
    g->to_sink = calloc((size_t)n, sizeof *g->to_sink);
    if (!g->head || !g->side || !g->to_sink) {
        ref_graph_destroy(g);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        g->head[i] = -1;
    return g;
}

void ref_graph_destroy(ref_graph *g)
{
    if (!g)
        return;
    free(g->head);
    free(g->next);
    free(g->to);
    free(g->res);
    free(g->side);
    free(g->to_sink);
    free(g);
}

static int grow(ref_graph *g)
{
    int room = g->arc_room ? g->arc_room * 2 : 64;
    int *next = realloc(g->next, (size_t)room * sizeof *next);
    if (!next)
        return -1;
    g->next = next;
    int *to = realloc(g->to, (size_t)room * sizeof *to);
    if (!to)
        return -1;
    g->to = to;
    int64_t *res = realloc(g->res, (size_t)room * sizeof *res);
    if (!res)
        return -1;
    g->res = res;
    g->arc_room = room;
    return 0;
}

static void link_arc(ref_graph *g, int a, int u, int v, int64_t cap)
{
    g->to[a] = v;
    g->res[a] = cap;
    g->next[a] = g->head[u];
    g->head[u] = a;
}

int ref_graph_add_arc(ref_graph *g, int u, int v, int64_t cap)
{
    if (!g || u < 0 || v < 0 || u >= g->n || v >= g->n || cap < 0)
        return -1;
    if (g->narcs > INT32_MAX - 2)
        return -1;
    if (g->narcs + 2 > g->arc_room && grow(g) != 0)
        return -1;
    link_arc(g, g->narcs, u, v, cap);
    link_arc(g, g->narcs + 1, v, u, 0);
    g->narcs += 2;
    return 0;
}

/* Levels from s over arcs with residual; returns 1 if t was reached. With
 * `early`, stops once t's level is done: deeper nodes lie on no shortest
 * path. */
static int bfs_levels(const ref_graph *g, int s, int t, int early, int *level, int *queue)
{
    for (int i = 0; i < g->n; i++)
        level[i] = -1;
    int qh = 0, qt = 0;
    level[s] = 0;
    queue[qt++] = s;
    while (qh < qt) {
        int u = queue[qh++];
        if (early && level[t] >= 0 && level[u] >= level[t])
            break;
        for (int a = g->head[u]; a >= 0; a = g->next[a]) {
            int v = g->to[a];
            if (g->res[a] > 0 && level[v] < 0) {
                level[v] = level[u] + 1;
                queue[qt++] = v;
            }
        }
    }
    return level[t] >= 0;
}

/* One blocking flow. path[] holds the arcs from s to the current node;
 * cur[u] is the next arc of u still worth trying. A dead-end node gets level
 * -1 so that no later step enters it again in this phase. */
static int64_t blocking_flow(ref_graph *g, int s, int t, int *level, int *cur, int *path)
{
    int64_t total = 0;
    for (int i = 0; i < g->n; i++)
        cur[i] = g->head[i];
    int depth = 0;
    int u = s;
    for (;;) {
        if (u == t) {
            int64_t push = INT64_MAX;
            for (int k = 0; k < depth; k++)
                if (g->res[path[k]] < push)
                    push = g->res[path[k]];
            int first_full = -1;
            for (int k = 0; k < depth; k++) {
                g->res[path[k]] -= push;
                g->res[path[k] ^ 1] += push;
                if (first_full < 0 && g->res[path[k]] == 0)
                    first_full = k;
            }
            total += push;
            /* Resume from the tail of the first saturated arc. */
            depth = first_full;
            u = depth == 0 ? s : g->to[path[depth - 1]];
            continue;
        }
        int a = cur[u];
        while (a >= 0 && !(g->res[a] > 0 && level[g->to[a]] == level[u] + 1))
            a = g->next[a];
        cur[u] = a;
        if (a >= 0) {
            path[depth++] = a;
            u = g->to[a];
            continue;
        }
        /* Dead end: retreat one arc and skip it next time. */
        level[u] = -1;
        if (depth == 0)
            break;
        depth--;
        u = depth == 0 ? s : g->to[path[depth - 1]];
        cur[u] = g->next[cur[u]];
    }
    return total;
}

/* Backward BFS from t over residual arcs: u reaches t through v when the
 * arc u -> v (the pair of an arc out of v) has residual capacity left. */
static void mark_to_sink(ref_graph *g, int t, int *queue)
{
    int qh = 0, qt = 0;
    g->to_sink[t] = 1;
    queue[qt++] = t;
    while (qh < qt) {
        int v = queue[qh++];
        for (int a = g->head[v]; a >= 0; a = g->next[a]) {
            int u = g->to[a];
            if (!g->to_sink[u] && g->res[a ^ 1] > 0) {
                g->to_sink[u] = 1;
                queue[qt++] = u;
            }
        }
    }
}

int64_t ref_graph_maxflow(ref_graph *g, int s, int t)
{
    if (!g || s < 0 || t < 0 || s >= g->n || t >= g->n)
        return 0;
    int *level = malloc((size_t)g->n * sizeof *level);
    int *queue = malloc((size_t)g->n * sizeof *queue);
    int *cur = malloc((size_t)g->n * sizeof *cur);
    int *path = malloc((size_t)g->n * sizeof *path);
    int64_t flow = 0;
    if (!level || !queue || !cur || !path) {
        flow = -1;
        goto done;
    }
    if (s != t)
        while (bfs_levels(g, s, t, 1, level, queue))
            flow += blocking_flow(g, s, t, level, cur, path);
    /* The last BFS did not reach t: its reached set is the source side. */
    bfs_levels(g, s, t, 0, level, queue);
    for (int i = 0; i < g->n; i++)
        g->side[i] = level[i] >= 0;
    mark_to_sink(g, t, queue);
done:
    free(level);
    free(queue);
    free(cur);
    free(path);
    return flow;
}

int ref_graph_reaches_sink(const ref_graph *g, int v)
{
    if (!g || v < 0 || v >= g->n)
        return 0;
    return g->to_sink[v];
}

int ref_graph_source_side(const ref_graph *g, int v)
{
    if (!g || v < 0 || v >= g->n)
        return 0;
    return g->side[v];
}
