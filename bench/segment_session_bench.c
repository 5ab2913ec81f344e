/* Interactive re-segmentation: a segmentation session on each GrabCut image
 * (upscaled, nearest neighbour, to about --megapixels), its first seeds the
 * robot user's scribbles (scribbles1/), then --additions more, each a disk
 * of the ground truth's label dropped on a mislabelled pixel of the last
 * mask (the robot user of Gulshan et al.). The same states go to a session
 * on each device of --devices (default: the CPU, and the GPU when there is
 * one), in the same run; the devices' masks and flows must be equal at
 * every state. Per update: its whole time (seeds in, mask out) and its
 * longest re-cut (terminals set, cut, labels back: gcut_segment_info's
 * time_recut_max_ms); the first state (the session's first cut, from no
 * flow) is reported apart from the additions (the warm updates). With
 * --one-shot, every state is also segmented by gcut_segment_image() on the
 * last device (the GPU when there is one), in a context of its own (so
 * that it leaves the session's kept flow alone), whose mask and flow must
 * be the session's; its longest cut (every cut from no flow) is the
 * baseline of the re-cut columns. Where each GPU cut's time goes comes
 * from the library's word on it (verbosity 3): the terminals, the
 * push-relabel run on the device's clock, and the rest (the labels on the
 * device and their copy to the host), with the run's global relabels and
 * push launches; a table of them follows, and last, per device, where the
 * additions' updates went (gcut_segment_info's model, graph and cut times,
 * and the rest of the wall time). --cpu-additions K: the
 * CPU session stops after K additions (at 4 MP its updates take seconds),
 * the others go on. --max-seconds S: no image is started after S seconds
 * (the tables then cover the images done; for a bounded device run).
 *
 * Usage: segment-session-bench DATA_DIR [--megapixels M] [--additions N]
 *                              [--only NAME] [--devices cpu|gpu|cpu+gpu]
 *                              [--one-shot] [--cpu-additions K] [--max-seconds S]
 * DATA_DIR is the shared data's grabcut/ folder. Prints markdown tables (per
 * image, then over every update of every image) and exits 1 if a mask
 * differs. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcut.h"
#include "bench_util.h"
#include "robot_user.h"

#define MAX_DEVICES 2

/* The library's word on each GPU segmentation cut (verbosity 3): from
 * the last flow or from none, and where its time went. */
typedef struct cut_record {
    int warm, first; /* from the last flow; the first cut of its update */
    double all, terminals, run, rest, relabels, launches;
} cut_record;

typedef struct cut_log {
    cut_record *cuts;
    int n, cap;
    int update_began; /* the next cut is its update's first */
    long long pull_warm, pull_sweeps, pull_cold; /* the general path's pull sweeps, if any ran */
} cut_log;

static void log_cut(void *user, int level, const char *message)
{
    (void)level;
    cut_log *c = user;
    const char *at = strstr(message, "segmentation cut from ");
    if (at) {
        cut_record r = {0};
        r.warm = strncmp(at + strlen("segmentation cut from "), "the last flow", 13) == 0;
        const char *q = strchr(at, ':');
        if (!q || sscanf(q, ": %lf ms in all, terminals %lf ms, run %lf ms (%lf relabels, %lf "
                            "push launches), labels and the rest %lf ms",
                         &r.all, &r.terminals, &r.run, &r.relabels, &r.launches, &r.rest) != 6)
            return;
        r.first = c->update_began;
        c->update_began = 0;
        if (c->n == c->cap) {
            int cap = c->cap ? 2 * c->cap : 1024;
            cut_record *more = realloc(c->cuts, (size_t)cap * sizeof *more);
            if (!more)
                return;
            c->cuts = more;
            c->cap = cap;
        }
        c->cuts[c->n++] = r;
    } else if ((at = strstr(message, "last flow after "))) {
        c->pull_warm++;
        c->pull_sweeps += atoi(at + strlen("last flow after "));
    } else if (strstr(message, "starts from no flow")) {
        c->pull_cold++;
    }
}

#define MAX_STATES 101


/* Median and largest of v[0..n) (sorts v). */
static void summary(double *v, int n, double *med, double *max)
{
    *med = bench_median(v, n);
    *max = n ? v[n - 1] : 0;
}

/* Where the additions' updates went, per device (gcut_segment_info's
 * split): the colour models (the fits to the seeds and to each cut), the
 * graph (seeds up, pricing and terminals), the cuts (labels back), and the
 * rest of the wall time (the update's passes over the seeds and pixels). */
enum { SPLIT_MODEL, SPLIT_GRAPH, SPLIT_CUT, SPLIT_REST, SPLITS };
static double *split_ms[2][SPLITS];
static int split_n[2];

static void note_split(int v, const gcut_segment_info *info, double wall)
{
    if (!split_ms[v][0])
        for (int k = 0; k < SPLITS; k++)
            split_ms[v][k] = malloc(64 * MAX_STATES * sizeof(double));
    if (!split_ms[v][SPLITS - 1] || split_n[v] >= 64 * MAX_STATES)
        return;
    const double parts[SPLITS] = {info->time_model_ms, info->time_graph_ms, info->time_cut_ms,
                                  wall - info->time_model_ms - info->time_graph_ms -
                                      info->time_cut_ms};
    for (int k = 0; k < SPLITS; k++)
        split_ms[v][k][split_n[v]] = parts[k];
    split_n[v]++;
}

static void print_split(const char *const *dev_name, int ndev)
{
    printf("\n| device | updates | model ms (median) | graph ms (median) | cut ms (median) | "
           "rest ms (median) | model ms (max) | graph ms (max) | cut ms (max) | rest ms (max) "
           "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int v = 0; v < ndev; v++) {
        double med[SPLITS], max[SPLITS];
        for (int k = 0; k < SPLITS; k++) {
            med[k] = max[k] = 0;
            if (split_n[v])
                summary(split_ms[v][k], split_n[v], &med[k], &max[k]);
        }
        printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
               dev_name[v], split_n[v], med[0], med[1], med[2], med[3], max[0], max[1], max[2],
               max[3]);
        for (int k = 0; k < SPLITS; k++)
            free(split_ms[v][k]);
    }
}

/* Where the GPU cuts' time went: per kind of cut, the medians (and the
 * largest total) of the parts the library reported. */
static void print_breakdown(const cut_log *logs, const char *const *dev_name, int ndev)
{
    static const char *kind[3] = {"from the last flow, an update's first",
                                  "from the last flow, later in an update", "from no flow"};
    int header = 0;
    for (int v = 0; v < ndev; v++) {
        const cut_log *c = &logs[v];
        if (c->n == 0)
            continue;
        if (!header) {
            printf("\n| device | cuts | count | in all ms (median) | in all ms (max) | terminals "
                   "ms (median) | run ms (median) | run ms (max) | labels and the rest ms "
                   "(median) | relabels (median) | push launches (median) |\n"
                   "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            header = 1;
        }
        double *col[6];
        for (int j = 0; j < 6; j++)
            col[j] = malloc((size_t)c->n * sizeof(double));
        for (int k = 0; k < 3 && col[5]; k++) {
            int m = 0;
            for (int i = 0; i < c->n; i++) {
                const cut_record *r = &c->cuts[i];
                int which = !r->warm ? 2 : r->first ? 0 : 1;
                if (which != k || !col[0] || !col[1] || !col[2] || !col[3] || !col[4])
                    continue;
                col[0][m] = r->all;
                col[1][m] = r->terminals;
                col[2][m] = r->run;
                col[3][m] = r->rest;
                col[4][m] = r->relabels;
                col[5][m] = r->launches;
                m++;
            }
            if (m == 0)
                continue;
            double med[6], max[6];
            for (int j = 0; j < 6; j++)
                summary(col[j], m, &med[j], &max[j]);
            printf("| %s | %s | %d | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.0f | %.0f |\n",
                   dev_name[v], kind[k], m, med[0], max[0], med[1], med[2], max[2], med[3], med[4],
                   med[5]);
        }
        for (int j = 0; j < 6; j++)
            free(col[j]);
        if (c->pull_warm || c->pull_cold)
            printf("\n%s: %lld solves after pull sweeps (%lld sweeps in all), %lld fell back "
                   "to no flow\n", dev_name[v], c->pull_warm, c->pull_sweeps, c->pull_cold);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [--megapixels M] [--additions N] [--only NAME] "
                        "[--devices cpu|gpu|cpu+gpu] [--one-shot] [--cpu-additions K] "
                        "[--max-seconds S]\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1], *only = NULL, *devices = NULL;
    double megapixels = 4.0, max_seconds = 0;
    int additions = 10, one_shot = 0, cpu_additions = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--megapixels") && i + 1 < argc)
            megapixels = atof(argv[++i]);
        else if (!strcmp(argv[i], "--additions") && i + 1 < argc)
            additions = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--devices") && i + 1 < argc)
            devices = argv[++i];
        else if (!strcmp(argv[i], "--cpu-additions") && i + 1 < argc)
            cpu_additions = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc)
            max_seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--one-shot"))
            one_shot = 1;
        else {
            fprintf(stderr, "segment-session-bench: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (additions < 1 || additions >= MAX_STATES || !(megapixels > 0 && megapixels <= 64)) {
        fprintf(stderr, "segment-session-bench: --additions 1..%d, --megapixels (0, 64]\n",
                MAX_STATES - 1);
        return 2;
    }
    gcut_context *ctx[MAX_DEVICES] = {NULL, NULL}, *one_ctx = NULL;
    cut_log counts[MAX_DEVICES];
    memset(counts, 0, sizeof counts);
    const char *dev_name[MAX_DEVICES];
    int ndev = 0;
    {
        gcut_options opt;
        gcut_options_init(&opt);
        opt.device = GCUT_DEVICE_GPU;
        gcut_context *probe = NULL;
        int gpus = 0;
        if (gcut_context_create(&opt, &probe) == GCUT_OK && gcut_cuda_built())
            gcut_device_count(probe, &gpus);
        gcut_context_destroy(probe);
        const char *want = devices ? devices : gpus > 0 ? "cpu,gpu" : "cpu";
        for (int k = 0; k < 2; k++) {
            const char *name = k ? "gpu" : "cpu";
            if (!strstr(want, name))
                continue;
            if (k && gpus == 0) {
                fprintf(stderr, "segment-session-bench: no usable GPU\n");
                return 1;
            }
            opt.device = k ? GCUT_DEVICE_GPU : GCUT_DEVICE_CPU;
            opt.verbosity = 3;
            opt.log = log_cut;
            opt.log_user = &counts[ndev];
            if (gcut_context_create(&opt, &ctx[ndev]) != GCUT_OK)
                return 1;
            dev_name[ndev++] = name;
        }
        if (one_shot && ndev > 0) { /* the one-shots' own context, on the last device */
            opt.device = strcmp(dev_name[ndev - 1], "gpu") ? GCUT_DEVICE_CPU : GCUT_DEVICE_GPU;
            opt.verbosity = 0;
            opt.log = NULL;
            opt.log_user = NULL;
            if (gcut_context_create(&opt, &one_ctx) != GCUT_OK)
                return 1;
        }
        if (ndev == 0) {
            fprintf(stderr, "segment-session-bench: --devices cpu, gpu or cpu+gpu\n");
            return 2;
        }
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/scribbles1", dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "segment-session-bench: no %s\n", path);
        return 1;
    }
    char *names[64];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < 64;) {
        const char *suffix = strstr(e->d_name, "-anno.png");
        if (suffix && suffix[9] == '\0') {
            names[count] = malloc((size_t)(suffix - e->d_name) + 1);
            memcpy(names[count], e->d_name, (size_t)(suffix - e->d_name));
            names[count][suffix - e->d_name] = '\0';
            count++;
        }
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, bench_cmp_name);

    /* Every addition's update and longest re-cut, over all images, per device. */
    double *all_upd[MAX_DEVICES], *all_cut[MAX_DEVICES], *first_upd[MAX_DEVICES],
        *first_cut[MAX_DEVICES];
    int all_n[MAX_DEVICES] = {0, 0}, first_n[MAX_DEVICES] = {0, 0};
    for (int k = 0; k < ndev; k++) {
        all_upd[k] = malloc((size_t)count * MAX_STATES * sizeof(double));
        all_cut[k] = malloc((size_t)count * MAX_STATES * sizeof(double));
        first_upd[k] = malloc((size_t)count * sizeof(double));
        first_cut[k] = malloc((size_t)count * sizeof(double));
    }
    printf("| image | pixels | device | solver | create ms | first update ms | first re-cut ms | "
           "additions | update ms (median) | update ms (max) | re-cut ms (median) | "
           "re-cut ms (max) | cuts (median) | one-shot cut ms (median) |\n"
           "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int bad = 0;
    const double began = gcut_clock_ms();
    for (int k = 0; k < count; k++) {
        if (only && !strstr(names[k], only))
            continue;
        if (max_seconds > 0 && gcut_clock_ms() - began > 1000 * max_seconds) {
            fprintf(stderr, "segment-session-bench: %.0f s passed: %s and the images after it "
                            "left out\n", max_seconds, names[k]);
            break;
        }
        gcut_image *im = NULL, *sc = NULL, *gt = NULL;
        char ip[1024], sp[1024], gp[1024];
        snprintf(ip, sizeof ip, "%s/images/%s.jpg", dir, names[k]);
        snprintf(sp, sizeof sp, "%s/scribbles1/%s-anno.png", dir, names[k]);
        snprintf(gp, sizeof gp, "%s/gt/%s.png", dir, names[k]);
        if (gcut_image_load(ctx[0], ip, &im) || gcut_image_load(ctx[0], sp, &sc) ||
            gcut_image_load(ctx[0], gp, &gt)) {
            fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx[0]));
            gcut_image_destroy(im);
            gcut_image_destroy(sc);
            gcut_image_destroy(gt);
            continue;
        }
        int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
        int n0 = w * h;
        uint8_t *seeds0 = calloc((size_t)n0, 1), *truth0 = malloc((size_t)n0);
        gcut_seeds_add_scribbles(ctx[0], seeds0, w, h, sc, NULL, NULL);
        int gc = gcut_image_channels(gt);
        for (int i = 0; i < n0; i++)
            truth0[i] = gcut_image_pixels(gt)[(size_t)i * gc];
        double f = sqrt(megapixels * 1e6 / n0);
        if (f < 1)
            f = 1;
        int W, H, W2, H2;
        uint8_t *pix = bench_upscale(gcut_image_pixels(im), w, h, c, f, &W, &H);
        uint8_t *seeds = bench_upscale(seeds0, w, h, 1, f, &W2, &H2);
        uint8_t *truth = bench_upscale(truth0, w, h, 1, f, &W2, &H2);
        size_t n = (size_t)W * H;
        uint8_t *mask[MAX_DEVICES], *want = malloc(n);
        gcut_segment_options so;
        gcut_segment_options_init(&so);
        gcut_segment_session *ss[MAX_DEVICES] = {NULL, NULL};
        double create_ms[MAX_DEVICES] = {0, 0};
        double upd[MAX_DEVICES][MAX_STATES], cut[MAX_DEVICES][MAX_STATES];
        double cuts[MAX_DEVICES][MAX_STATES], one_cut[MAX_STATES];
        int ran[MAX_DEVICES] = {0, 0}; /* states each device's session took */
        const char *algo[MAX_DEVICES] = {"?", "?"};
        gcut_status st = GCUT_OK;
        int fail_dev = 0;
        for (int v = 0; v < ndev; v++) {
            mask[v] = malloc(n);
            if (st)
                continue;
            double t0 = gcut_clock_ms();
            st = gcut_segment_session_create(ctx[v], pix, W, H, c, (size_t)W * c, &so, &ss[v]);
            create_ms[v] = gcut_clock_ms() - t0;
            fail_dev = v;
        }
        int states = 0;
        uint64_t rs = 12345 + (uint64_t)k;
        for (int s = 0; !st && s <= additions; s++) {
            /* The next state from the last device's mask (all are equal). */
            if (s > 0 && !bench_add_disk(&rs, truth, mask[ndev - 1], seeds, W, H, (int)(4 * f) + 2))
                break;
            gcut_segment_info info[MAX_DEVICES];
            int took[MAX_DEVICES] = {0, 0};
            for (int v = 0; v < ndev && !st; v++) {
                if (!strcmp(dev_name[v], "cpu") && cpu_additions >= 0 && s > cpu_additions &&
                    v < ndev - 1)
                    continue;
                took[v] = 1;
                ran[v]++;
                counts[v].update_began = 1;
                double t1 = gcut_clock_ms();
                st = gcut_segment_session_update(ss[v], seeds, mask[v], &info[v]);
                upd[v][states] = gcut_clock_ms() - t1;
                if (!st && s > 0)
                    note_split(v, &info[v], upd[v][states]);
                cut[v][states] = info[v].time_recut_max_ms;
                cuts[v][states] = info[v].iterations;
                algo[v] = info[v].algo;
                fail_dev = v;
            }
            if (st)
                break;
            for (int v = 0; v < ndev - 1; v++)
                if (took[v] && (memcmp(mask[v], mask[ndev - 1], n) != 0 ||
                                info[v].flow != info[ndev - 1].flow)) {
                    fprintf(stderr, "%s, state %d: the %s session's mask or flow (%lld) differs "
                                    "from the %s session's (%lld)\n",
                            names[k], s, dev_name[v], (long long)info[v].flow,
                            dev_name[ndev - 1], (long long)info[ndev - 1].flow);
                    bad = 1;
                }
            if (one_shot) {
                gcut_segment_info oi;
                st = gcut_segment_image(one_ctx, pix, W, H, c, (size_t)W * c, seeds, &so, want,
                                        &oi);
                one_cut[states] = oi.time_recut_max_ms;
                if (st) {
                    fprintf(stderr, "%s, state %d: the one-shot failed: %s\n", names[k], s,
                            gcut_last_error(one_ctx));
                    st = GCUT_OK;
                    bad = 1;
                } else if (memcmp(mask[ndev - 1], want, n) != 0 ||
                           oi.flow != info[ndev - 1].flow) {
                    fprintf(stderr, "%s, state %d: the session's mask or flow (%lld) differs "
                                    "from the one-shot's (%lld)\n",
                            names[k], s, (long long)info[ndev - 1].flow, (long long)oi.flow);
                    bad = 1;
                }
            }
            states++;
        }
        if (st) {
            fprintf(stderr, "%s (%s): %s\n", names[k], dev_name[fail_dev],
                    gcut_last_error(ctx[fail_dev]));
            bad = 1;
        } else {
            for (int v = 0; v < ndev; v++) {
                double um, ux, cm, cx, km, kx;
                first_upd[v][first_n[v]] = upd[v][0];
                first_cut[v][first_n[v]++] = cut[v][0];
                for (int s = 1; s < ran[v]; s++) {
                    all_upd[v][all_n[v]] = upd[v][s];
                    all_cut[v][all_n[v]++] = cut[v][s];
                }
                summary(upd[v] + 1, ran[v] - 1, &um, &ux);
                summary(cut[v] + 1, ran[v] - 1, &cm, &cx);
                summary(cuts[v] + 1, ran[v] - 1, &km, &kx);
                char base[32] = "-";
                if (one_shot && v == ndev - 1) {
                    double om, ox;
                    summary(one_cut + 1, states - 1, &om, &ox);
                    snprintf(base, sizeof base, "%.2f", om);
                }
                printf("| %s | %dx%d | %s | %s | %.1f | %.1f | %.2f | %d | %.1f | %.1f | %.2f | "
                       "%.2f | %.0f | %s |\n",
                       names[k], W, H, dev_name[v], algo[v], create_ms[v], upd[v][0], cut[v][0],
                       ran[v] - 1, um, ux, cm, cx, km, base);
            }
            fflush(stdout);
        }
        for (int v = 0; v < ndev; v++) {
            gcut_segment_session_destroy(ss[v]);
            free(mask[v]);
        }
        free(pix);
        free(seeds);
        free(truth);
        free(seeds0);
        free(truth0);
        free(want);
        gcut_image_destroy(im);
        gcut_image_destroy(sc);
        gcut_image_destroy(gt);
    }
    printf("\n| device | updates | update ms (median) | update ms (max) | re-cut ms (median) | "
           "re-cut ms (max) | first updates | first update ms (median) | first re-cut ms "
           "(median) | cuts from the last flow | cuts from no flow | of those, not a session's "
           "first |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int v = 0; v < ndev; v++) {
        double um, ux, cm, cx, fm, fx, gm, gx;
        summary(all_upd[v], all_n[v], &um, &ux);
        summary(all_cut[v], all_n[v], &cm, &cx);
        summary(first_upd[v], first_n[v], &fm, &fx);
        summary(first_cut[v], first_n[v], &gm, &gx);
        int warm = 0, cold = 0;
        for (int i = 0; i < counts[v].n; i++)
            warm += counts[v].cuts[i].warm, cold += !counts[v].cuts[i].warm;
        if (counts[v].n == 0) /* no word from the library: a CPU session */
            printf("| %s | %d | %.1f | %.1f | %.2f | %.2f | %d | %.1f | %.2f | - | - | - |\n",
                   dev_name[v], all_n[v], um, ux, cm, cx, first_n[v], fm, gm);
        else
            printf("| %s | %d | %.1f | %.1f | %.2f | %.2f | %d | %.1f | %.2f | %d | %d | %d |\n",
                   dev_name[v], all_n[v], um, ux, cm, cx, first_n[v], fm, gm, warm, cold,
                   cold - first_n[v]);
        free(all_upd[v]);
        free(all_cut[v]);
        free(first_upd[v]);
        free(first_cut[v]);
    }
    print_breakdown(counts, dev_name, ndev);
    print_split(dev_name, ndev);
    for (int v = 0; v < ndev; v++)
        free(counts[v].cuts);
    for (int k = 0; k < count; k++)
        free(names[k]);
    for (int v = 0; v < ndev; v++)
        gcut_context_destroy(ctx[v]);
    gcut_context_destroy(one_ctx);
    return bad;
}
