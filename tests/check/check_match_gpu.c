/* G-PR against the CPU solvers (check_match_gpu.h). */
#include "check_match_gpu.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_match.h"
#include "check_rng.h"

static void one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                uint64_t seed, int index)
{
    char device[256];
    if (gcut_device_name(gpu, 0, device, sizeof device)) {
        check_fail(r, "no device name: %s", gcut_last_error(gpu));
        return;
    }
    check_match_entries e;
    const int large = index % 5 == 4;
    if (large ? check_match_large_instance(seed, index, &e)
              : check_match_instance(seed, index, &e)) {
        check_fail(r, "instance %d: out of memory", index);
        check_match_entries_free(&e);
        return;
    }
    int32_t expected = -1;
    gcut_bipartite *bg = NULL;
    if (large) {
        gcut_match_info info;
        if (gcut_match_arrays(cpu, e.rows, e.cols, e.nnz, e.row, e.col, "pr", NULL, NULL, NULL,
                              NULL, &info) == GCUT_OK)
            expected = info.size;
    } else {
        expected = check_match_reference(&e);
    }
    if (expected < 0 ||
        gcut_bipartite_create_from_edges(gpu, e.rows, e.cols, e.nnz, e.row, e.col, NULL, &bg)) {
        check_fail(r, "%s: cannot set up: %s", e.name, gcut_last_error(gpu));
    } else if (!check_match_solve(r, bg, algo, expected, e.name, device)) {
        r->passed++;
    }
    gcut_bipartite_destroy(bg);
    check_match_entries_free(&e);
}

void check_match_gpu_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, one, "gpr", count, seed);
}

/* The matrices: every file, one instance each. */
static void one_matrix(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                       uint64_t seed, int index)
{
    (void)seed;
    (void)index;
    const char *dir = check_match_matrices_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        r->skipped++;
        return;
    }
    char device[256];
    gcut_device_name(gpu, 0, device, sizeof device);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (n < 5 || strcmp(ent->d_name + n - 4, ".mtx") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        gcut_bipartite *bc = NULL, *bg = NULL;
        gcut_match_info info;
        if (gcut_bipartite_read(cpu, path, GCUT_BIPARTITE_NO_COSTS, &bc) ||
            gcut_bipartite_read(gpu, path, GCUT_BIPARTITE_NO_COSTS, &bg) ||
            gcut_match(bc, "hk", NULL, NULL, NULL, NULL, &info)) {
            check_fail(r, "%s: %s", path, gcut_last_error(cpu));
        } else if (!check_match_solve(r, bg, algo, info.size, ent->d_name, device)) {
            r->passed++;
        }
        gcut_bipartite_destroy(bc);
        gcut_bipartite_destroy(bg);
    }
    closedir(d);
}

void check_match_gpu_matrices(check_report *r, int count, uint64_t seed)
{
    (void)count;
    if (!check_match_matrices_dir()) {
        r->skipped++;
        return;
    }
    check_gpu_run(r, one_matrix, "gpr", 1, seed);
}
