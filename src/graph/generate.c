/* The public entry to the benchmark generators (gen.h): a family by name,
 * its parameters in a fixed order. */
#include <math.h>
#include <string.h>

#include "core/context.h"
#include "graph/gen.h"

typedef struct family {
    const char *name;
    int params;  /* how many the generator takes */
    int integer; /* the first `integer` of them are whole numbers in int32 */
} family;

static const family families[] = {
    {"genrmf", 4, 4},        /* a, b, c1, c2 */
    {"rlg", 3, 3},           /* rows, cols, range */
    {"acyclic-dense", 1, 1}, /* n */
    {"vision", 4, 3},        /* width, height, connectivity, density */
};

gcut_status gcut_graph_generate(gcut_context *ctx, const char *name, const double *params,
                                int count, uint64_t seed, gcut_graph **out)
{
    gcut__clear_error(ctx);
    if (!name || !out || (count > 0 && !params))
        return gcut__fail(ctx, GCUT_E_INVALID, "generate: no %s given",
                          !name ? "family" : !out ? "output" : "parameters");
    *out = NULL;
    int f = 0, n = (int)(sizeof families / sizeof families[0]);
    while (f < n && strcmp(families[f].name, name) != 0)
        f++;
    if (f == n)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "generate: unknown family '%s' (genrmf, rlg, acyclic-dense, vision)",
                          name);
    if (count != families[f].params)
        return gcut__fail(ctx, GCUT_E_INVALID, "generate: %s takes %d parameters, not %d", name,
                          families[f].params, count);
    int32_t p[4] = {0};
    for (int i = 0; i < families[f].integer; i++) {
        /* Whole numbers only: a cast of anything else would change it. */
        if (!(params[i] >= INT32_MIN && params[i] <= INT32_MAX) || params[i] != floor(params[i]))
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "generate: %s parameter %d is %g, not an integer in int32", name,
                              i + 1, params[i]);
        p[i] = (int32_t)params[i];
    }
    switch (f) {
    case 0: return gcut__gen_genrmf(ctx, p[0], p[1], p[2], p[3], seed, out);
    case 1: return gcut__gen_rlg(ctx, p[0], p[1], p[2], seed, out);
    case 2: return gcut__gen_acyclic_dense(ctx, p[0], seed, out);
    default: return gcut__gen_vision(ctx, p[0], p[1], p[2], params[3], seed, out);
    }
}
