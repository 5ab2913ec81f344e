/* The atomic writer's failure paths (src/io/atomic_file.c): a rename onto a
 * folder, a file-size limit reached part-way (RLIMIT_FSIZE in a child, as
 * a full disk would stop the write), a missing folder. Each must return
 * GCUT_E_IO naming the target, leave an earlier file at that path as it
 * was, and leave no temporary behind; a write that succeeds must replace
 * the earlier file whole. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_hostile.h"
#include "io/atomic_file.h"

int check_hostile_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp-") != NULL;
    closedir(d);
    return n;
}

static const char old_text[] = "the earlier file\n";

static int write_old(const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    int ok = fputs(old_text, fp) >= 0;
    ok &= fclose(fp) == 0;
    return ok ? 0 : -1;
}

/* 1 when `path` holds exactly the earlier file's text. */
static int holds_old(const char *path)
{
    char buf[64] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    return n == strlen(old_text) && !memcmp(buf, old_text, n);
}

/* A path graph of `n` nodes: its DIMACS text is about 12n bytes. */
static gcut_graph *chain_graph(gcut_context *ctx, int32_t n)
{
    int32_t *tail = malloc((size_t)n * sizeof *tail), *head = malloc((size_t)n * sizeof *head);
    int32_t *cap = malloc((size_t)n * sizeof *cap);
    gcut_graph *g = NULL;
    if (tail && head && cap) {
        for (int32_t i = 0; i + 1 < n; i++) {
            tail[i] = i;
            head[i] = i + 1;
            cap[i] = 1000 + i;
        }
        if (gcut_graph_create_from_arcs(ctx, n, n - 1, tail, head, cap, 0, n - 1, &g))
            g = NULL;
    }
    free(tail);
    free(head);
    free(cap);
    return g;
}

typedef enum writer_kind { WRITE_GRAPH, WRITE_FLOW, WRITE_IMAGE } writer_kind;

static gcut_status write_one(gcut_context *ctx, gcut_graph *g, writer_kind kind, const char *path)
{
    if (kind == WRITE_GRAPH)
        return gcut_graph_write_dimacs(g, path);
    if (kind == WRITE_FLOW) {
        gcut_status st = gcut_graph_solve(g, "bk", GCUT_GRAPH_SOLVE_FLOW, NULL);
        return st ? st : gcut_graph_write_flow(g, path);
    }
    /* 200 x 200 noise: no compressor gets it under the limit. */
    enum { W = 200, H = 200 };
    uint8_t *px = malloc((size_t)W * H * 3);
    if (!px)
        return GCUT_E_NOMEM;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)W * H * 3; i++)
        px[i] = (uint8_t)(check_mix(&s) >> 24);
    gcut_status st = gcut_image_save(ctx, path, px, W, H, 3, (size_t)W * 3);
    free(px);
    return st;
}

/* In a child with a file-size limit of 4 KiB: the write must fail with
 * GCUT_E_IO naming the path. Exit 0 when it did. */
static int write_under_limit(gcut_context *ctx, gcut_graph *g, writer_kind kind, const char *path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        struct rlimit lim = {4096, 4096};
        signal(SIGXFSZ, SIG_IGN); /* write() then fails with EFBIG instead */
        if (setrlimit(RLIMIT_FSIZE, &lim))
            _exit(3);
        gcut_status st = write_one(ctx, g, kind, path);
        _exit(st == GCUT_E_IO && strstr(gcut_last_error(ctx), path) ? 0 : 1);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

void check_hostile_atomic_writer(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    static const char *const names[] = {"graph", "flow", "image"};
    char dir[96], path[200], sub[200];
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    gcut_graph *g = ctx ? chain_graph(ctx, 2000) : NULL;
    if (!g || check_hostile_temp_dir(dir, "writer")) {
        check_fail(r, "no context, graph or temporary folder");
        gcut_graph_destroy(g);
        gcut_context_destroy(ctx);
        return;
    }
    for (int k = WRITE_GRAPH; k <= WRITE_IMAGE; k++) {
        snprintf(path, sizeof path, "%s/out-%s.%s", dir, names[k],
                 k == WRITE_IMAGE ? "png" : "max");
        /* A file-size limit part-way through: the earlier file intact. */
        if (write_old(path)) {
            check_fail(r, "cannot write %s", path);
            break;
        }
        int child = write_under_limit(ctx, g, (writer_kind)k, path);
        if (child != 0)
            check_fail(r,
                       "%s: under a 4 KiB file-size limit the write did not fail with an I/O "
                       "error naming the file (child %d)",
                       names[k], child);
        else if (!holds_old(path))
            check_fail(r, "%s: a write that failed part-way changed the earlier file", names[k]);
        else if (check_hostile_temporaries(dir) != 0)
            check_fail(r, "%s: a temporary was left behind after a failed write", names[k]);
        else
            r->passed++;

        /* The same write without the limit replaces the earlier file. */
        gcut_status st = write_one(ctx, g, (writer_kind)k, path);
        struct stat sb;
        if (st || holds_old(path) || stat(path, &sb) || sb.st_size < 4096 ||
            check_hostile_temporaries(dir) != 0)
            check_fail(r, "%s: the write without a limit did not replace the file (%s)", names[k],
                       gcut_last_error(ctx));
        else
            r->passed++;
        unlink(path);

        /* A folder where the file should go: the rename is refused. */
        if (mkdir(path, 0755)) {
            check_fail(r, "cannot make %s", path);
            break;
        }
        st = write_one(ctx, g, (writer_kind)k, path);
        if (!check_hostile_expect(r, ctx, st, GCUT_E_IO, path, "a rename onto a folder"))
            ;
        else if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
            check_fail(r, "%s: the folder in the way was replaced", names[k]);
        else if (check_hostile_temporaries(dir) != 0)
            check_fail(r, "%s: a temporary was left behind after a refused rename", names[k]);
        else
            r->passed++;
        rmdir(path);

        /* A folder that does not exist: nothing is created. */
        snprintf(sub, sizeof sub, "%s/no-such-folder/out.png", dir);
        st = write_one(ctx, g, (writer_kind)k, sub);
        if (check_hostile_expect(r, ctx, st, GCUT_E_IO, "no-such-folder/out", "a missing folder"))
            r->passed++;
    }
    check_hostile_remove_dir(dir);
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
}
