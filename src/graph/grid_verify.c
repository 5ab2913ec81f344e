/* The proof of a grid solve, checked from first principles.
 *
 * From the residuals, the net flow on every neighbour pair gives each
 * pixel's net outflow o(p). A preflow exists with that neighbour flow iff
 * o(p) <= source(p) at every pixel, and the most it can send to the sink is
 * sum_p min(sink(p), source(p) - o(p)). Any preflow's value is at most the
 * maximum flow, and any cut's capacity at least it; so when that value, the
 * reported flow and the labels' cut capacity are all equal, both the flow
 * and the cut are optimal. This holds for BK's flows and for push-relabel's
 * preflows alike. Where the terminals held are raised (g->terminal_offset:
 * both of a pixel's by the same amount, so that every cut grows by the sum),
 * the proof is of the raised graph, and its flow and cut less the sum are
 * the reported flow. */
#include <stdlib.h>

#include "graph/grid.h"
#include "gpu/gpu.h"

gcut_status gcut_grid_cut_capacity(const gcut_grid *g, const uint8_t *labels, int64_t *capacity)
{
    if (!g || !labels || !capacity)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "grid: no label array") : GCUT_E_INVALID;
    int64_t cut = 0;
    for (int y = 0; y < g->height; y++) {
        for (int x = 0; x < g->width; x++) {
            int32_t i = gcut__grid_node(g, x, y);
            int on_source = labels[(size_t)y * g->width + x] != 0;
            if (!on_source) {
                cut += g->source_cap[i];
                continue;
            }
            cut += g->sink_cap[i];
            for (int d = 0; d < g->ndirs; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height)
                    continue;
                if (!labels[(size_t)ny * g->width + nx])
                    cut += g->cap[d][i];
            }
        }
    }
    *capacity = cut - g->terminal_offset; /* each pixel cuts one of its raised terminals */
    return GCUT_OK;
}

gcut_status gcut_grid_verify(gcut_grid *g, int64_t *cut_capacity)
{
    if (!g)
        return GCUT_E_INVALID;
    if (!g->solved)
        return gcut__fail(g->ctx, GCUT_E_STATE, "grid: verify asked for before a solve");
    gcut_status fetched = gcut__gpu_grid_fetch_residuals(g); /* after a GPU solve */
    if (fetched)
        return fetched;
    int64_t *outflow = calloc((size_t)g->n_padded, sizeof *outflow);
    uint8_t *labels = malloc((size_t)g->width * g->height);
    if (!outflow || !labels) {
        free(outflow);
        free(labels);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "grid: out of memory while verifying");
    }
    gcut_status st = GCUT_OK;

    /* Capacity constraints on each neighbour pair, once per pair (even d). */
    for (int y = 0; y < g->height && !st; y++) {
        for (int x = 0; x < g->width && !st; x++) {
            int32_t p = gcut__grid_node(g, x, y);
            for (int d = 0; d < g->ndirs; d += 2) {
                int32_t q = p + g->offset[d];
                int64_t cap_pq = g->cap[d][p], cap_qp = g->cap[d ^ 1][q];
                int64_t res_pq = g->res[d][p], res_qp = g->res[d ^ 1][q];
                if (res_pq < 0 || res_qp < 0 || res_pq + res_qp != cap_pq + cap_qp) {
                    st = gcut__fail(g->ctx, GCUT_E_VERIFY,
                                    "verify: the flow on the %s arc of pixel (%d, %d) breaks its "
                                    "capacity (residuals %lld and %lld, capacities %lld and %lld)",
                                    gcut__dir_name(d), x, y, (long long)res_pq,
                                    (long long)res_qp, (long long)cap_pq, (long long)cap_qp);
                    break;
                }
                int64_t net = cap_pq - res_pq; /* net flow p -> q */
                outflow[p] += net;
                outflow[q] -= net;
            }
        }
    }

    /* Terminals: the best preflow with these neighbour flows. */
    int64_t to_sink = 0;
    for (int y = 0; y < g->height && !st; y++) {
        for (int x = 0; x < g->width; x++) {
            int32_t p = gcut__grid_node(g, x, y);
            int64_t room = g->source_cap[p] - outflow[p];
            if (room < 0) {
                st = gcut__fail(g->ctx, GCUT_E_VERIFY,
                                "verify: pixel (%d, %d) sends %lld to its neighbours but its "
                                "source capacity is %d",
                                x, y, (long long)outflow[p], g->source_cap[p]);
                break;
            }
            to_sink += room < g->sink_cap[p] ? room : g->sink_cap[p];
        }
    }
    int64_t cut = 0;
    if (!st)
        st = gcut_grid_labels(g, labels);
    if (!st)
        st = gcut_grid_cut_capacity(g, labels, &cut);
    to_sink -= g->terminal_offset;
    if (!st && to_sink != g->flow)
        st = gcut__fail(g->ctx, GCUT_E_VERIFY,
                        "verify: the residuals carry a flow of %lld, not the reported %lld",
                        (long long)to_sink, (long long)g->flow);
    if (!st && cut != g->flow)
        st = gcut__fail(g->ctx, GCUT_E_VERIFY,
                        "verify: the cut's capacity %lld differs from the flow %lld",
                        (long long)cut, (long long)g->flow);
    if (!st && cut_capacity)
        *cut_capacity = cut;
    free(outflow);
    free(labels);
    return st;
}
