/* Colour models: GrabCut's full-covariance Gaussian mixtures (Rother,
 * Kolmogorov, Blake, SIGGRAPH 2004, section 3) with Orchard-Bouman
 * initialisation, and smoothed 3-D colour histograms (Boykov, Jolly, ICCV
 * 2001). */
#include "vision/color_model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"

/* Fitting uses at most this many samples: the mixture's 50 parameters are
 * well determined by far fewer, and a 4-megapixel image stays fast. */
#define FIT_MAX_SAMPLES 65536
/* Added to every variance (8-bit levels squared): JPEG and sensor noise are
 * about a level, and without a floor a flat region gives a spike. */
#define GMM_VARIANCE_FLOOR 2.0
/* Hard-assignment rounds per fit (assign each sample its best component,
 * re-estimate), GrabCut's steps 1 and 2. */
#define GMM_ROUNDS 2
/* Histogram prior: pseudo-count per bin, so unseen colours stay finite. */
#define HIST_PRIOR 0.1

typedef struct stats {
    double count, sum[3], sq[6];
} stats;

static void stats_add(stats *s, const float *x)
{
    s->count += 1;
    for (int c = 0; c < 3; c++)
        s->sum[c] += x[c];
    s->sq[0] += x[0] * x[0];
    s->sq[1] += x[0] * x[1];
    s->sq[2] += x[0] * x[2];
    s->sq[3] += x[1] * x[1];
    s->sq[4] += x[1] * x[2];
    s->sq[5] += x[2] * x[2];
}

/* Mean and covariance (xx xy xz yy yz zz) of a cluster. */
static void stats_moments(const stats *s, double mean[3], double cov[6])
{
    for (int c = 0; c < 3; c++)
        mean[c] = s->sum[c] / s->count;
    static const int a[6] = {0, 0, 0, 1, 1, 2}, b[6] = {0, 1, 2, 1, 2, 2};
    for (int e = 0; e < 6; e++)
        cov[e] = s->sq[e] / s->count - mean[a[e]] * mean[b[e]];
}

static void sym_mul(const double m[6], const double v[3], double out[3])
{
    out[0] = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    out[1] = m[1] * v[0] + m[3] * v[1] + m[4] * v[2];
    out[2] = m[2] * v[0] + m[4] * v[1] + m[5] * v[2];
}

/* The largest eigenvalue and its eigenvector, by power iteration (the
 * matrix is symmetric positive semi-definite). */
static double principal_axis(const double cov[6], double axis[3])
{
    double v[3] = {0.57735, 0.57735, 0.57735}, w[3];
    double lambda = 0;
    for (int it = 0; it < 50; it++) {
        sym_mul(cov, v, w);
        double norm = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        if (norm < 1e-12) {
            /* v lies in the null space: try an axis. */
            v[0] = (it % 3) == 0, v[1] = (it % 3) == 1, v[2] = (it % 3) == 2;
            continue;
        }
        for (int c = 0; c < 3; c++)
            v[c] = w[c] / norm;
        lambda = norm;
    }
    memcpy(axis, v, sizeof v);
    return lambda;
}

/* Weights, means, inverse covariances and normalisers from cluster stats. */
static void gmm_from_stats(gcut__color_model *m, const stats *st, double total)
{
    for (int k = 0; k < m->k; k++) {
        if (st[k].count < 1) {
            m->weight[k] = 0;
            continue;
        }
        double cov[6];
        stats_moments(&st[k], m->mean[k], cov);
        cov[0] += GMM_VARIANCE_FLOOR;
        cov[3] += GMM_VARIANCE_FLOOR;
        cov[5] += GMM_VARIANCE_FLOOR;
        /* Inverse by cofactors; the floor keeps the determinant positive. */
        double c00 = cov[3] * cov[5] - cov[4] * cov[4];
        double c01 = cov[2] * cov[4] - cov[1] * cov[5];
        double c02 = cov[1] * cov[4] - cov[2] * cov[3];
        double det = cov[0] * c00 + cov[1] * c01 + cov[2] * c02;
        if (!(det > 1e-12))
            det = 1e-12;
        double *inv = m->inv_cov[k];
        inv[0] = c00 / det;
        inv[1] = c01 / det;
        inv[2] = c02 / det;
        inv[3] = (cov[0] * cov[5] - cov[2] * cov[2]) / det;
        inv[4] = (cov[1] * cov[2] - cov[0] * cov[4]) / det;
        inv[5] = (cov[0] * cov[3] - cov[1] * cov[1]) / det;
        m->weight[k] = st[k].count / total;
        m->log_norm[k] = -log(m->weight[k]) + 0.5 * log(det) + 2.7568155996140178 /* 1.5 log(2 pi) */;
    }
}

void gcut__price_model_from(const gcut__color_model *m, gcut__price_model *p)
{
    p->hist = m->kind == GCUT_MODEL_HIST;
    p->neg_log = m->neg_log;
    p->used = 0;
    if (p->hist)
        return;
    for (int k = 0; k < m->k; k++) {
        if (m->weight[k] <= 0)
            continue;
        int u = p->used++;
        p->index[u] = k;
        for (int c = 0; c < 3; c++)
            p->mean[u][c] = (float)m->mean[k][c];
        for (int e = 0; e < 6; e++)
            p->iv[u][e] = (float)m->inv_cov[k][e];
        p->norm[u] = (float)m->log_norm[k];
    }
}

/* One pass of Orchard-Bouman over the samples, in parts: the first puts
 * every sample in cluster 0; a split moves the samples of cluster `split`
 * beyond the cut plane to cluster `made`. Each part sums the two clusters'
 * stats in its own row: sums of 8-bit levels and their products, exact in
 * double, so the rows add up to the same bits in any order. */
typedef struct split_job {
    const float *x;
    uint8_t *assign;
    int first, split, made;
    double axis[3], cut;
    stats st[GCUT__MAX_THREADS][2]; /* per part: cluster split (or 0), cluster made */
} split_job;

static void split_samples(void *arg, int64_t begin, int64_t end, int part)
{
    split_job *j = arg;
    stats *st = j->st[part];
    memset(st, 0, 2 * sizeof *st);
    for (int64_t i = begin; i < end; i++) {
        const float *p = j->x + 3 * i;
        if (j->first) {
            j->assign[i] = 0;
            stats_add(&st[0], p);
            continue;
        }
        if (j->assign[i] != j->split)
            continue;
        if (j->axis[0] * p[0] + j->axis[1] * p[1] + j->axis[2] * p[2] > j->cut)
            j->assign[i] = (uint8_t)j->made;
        stats_add(&st[j->assign[i] == j->made], p);
    }
}

static void stats_merge(stats *to, const stats *from)
{
    to->count += from->count;
    for (int c = 0; c < 3; c++)
        to->sum[c] += from->sum[c];
    for (int e = 0; e < 6; e++)
        to->sq[e] += from->sq[e];
}

/* Orchard-Bouman: split the cluster of largest principal variance along its
 * principal axis until there are k clusters (or nothing left to split);
 * each pass over the samples on threads (split_samples). */
static void orchard_bouman(gcut__color_model *m, const float *x, int64_t ns, uint8_t *assign,
                           stats *st, split_job *job)
{
    /* A sample's pass costs some 20 operations: weighed so for the threads. */
    const int parts = gcut__thread_count(m->threads, ns * 8);
    job->x = x;
    job->assign = assign;
    job->first = 1;
    memset(st, 0, sizeof(stats) * (size_t)m->k);
    gcut__parallel_for(parts, ns, split_samples, job);
    for (int p = 0; p < parts; p++)
        stats_merge(&st[0], &job->st[p][0]);
    job->first = 0;
    for (int made = 1; made < m->k; made++) {
        int split = -1;
        double widest = 1e-9, axis[3] = {0}, mean[3] = {0};
        for (int k = 0; k < made; k++) {
            if (st[k].count < 2)
                continue;
            double mu[3], cov[6], ax[3];
            stats_moments(&st[k], mu, cov);
            double l = principal_axis(cov, ax);
            if (l > widest) {
                widest = l, split = k;
                memcpy(axis, ax, sizeof ax);
                memcpy(mean, mu, sizeof mu);
            }
        }
        if (split < 0)
            break;
        job->split = split;
        job->made = made;
        memcpy(job->axis, axis, sizeof axis);
        job->cut = axis[0] * mean[0] + axis[1] * mean[1] + axis[2] * mean[2];
        gcut__parallel_for(parts, ns, split_samples, job);
        memset(&st[split], 0, sizeof(stats));
        memset(&st[made], 0, sizeof(stats));
        for (int p = 0; p < parts; p++) {
            stats_merge(&st[split], &job->st[p][0]);
            stats_merge(&st[made], &job->st[p][1]);
        }
    }
}

/* A hard-assignment round over samples, in parts: each part's cluster
 * stats in its own row of st. */
typedef struct assign_job {
    gcut__price_model g;
    const float *x;
    int k, parts;
    stats *st; /* parts x k */
} assign_job;

static void assign_samples(void *arg, int64_t begin, int64_t end, int part)
{
    assign_job *j = arg;
    stats *st = j->st + (size_t)part * j->k;
    for (int64_t i = begin; i < end; i++) {
        const float *p = j->x + 3 * i;
        float cost;
        int u = gcut__price_best(&j->g, p[0], p[1], p[2], &cost);
        stats_add(&st[u < 0 ? 0 : j->g.index[u]], p);
    }
}

static gcut_status fit_gmm(gcut_context *ctx, gcut__color_model *m, const float *x, int64_t ns)
{
    uint8_t *assign = malloc((size_t)ns);
    stats *st = calloc((size_t)m->k, sizeof *st);
    if (!assign || !st) {
        free(assign);
        free(st);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
    }
    if (!m->fitted) {
        split_job *job = malloc(sizeof *job);
        if (!job) {
            free(assign);
            free(st);
            return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
        }
        orchard_bouman(m, x, ns, assign, st, job);
        free(job);
        gmm_from_stats(m, st, (double)ns);
        m->fitted = 1;
    }
    for (int round = 0; round < GMM_ROUNDS; round++) {
        assign_job job;
        gcut__price_model_from(m, &job.g);
        job.x = x;
        job.k = m->k;
        /* A sample costs k components of some 20 operations each: weigh it
         * so (in parallel.h's items of about a nanosecond) when deciding
         * how many threads pay. */
        job.parts = gcut__thread_count(m->threads, ns * m->k * 8);
        job.st = calloc((size_t)job.parts * (size_t)m->k, sizeof *job.st);
        if (!job.st) {
            free(assign);
            free(st);
            return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
        }
        gcut__parallel_for(job.parts, ns, assign_samples, &job);
        /* Every sum is of 8-bit levels and their products, exact in double:
         * the parts add up to the same bits in any order. */
        memset(st, 0, sizeof(stats) * (size_t)m->k);
        for (int p = 0; p < job.parts; p++)
            for (int k = 0; k < m->k; k++) {
                const stats *a = &job.st[(size_t)p * m->k + k];
                st[k].count += a->count;
                for (int c = 0; c < 3; c++)
                    st[k].sum[c] += a->sum[c];
                for (int e = 0; e < 6; e++)
                    st[k].sq[e] += a->sq[e];
            }
        free(job.st);
        gmm_from_stats(m, st, (double)ns);
    }
    free(assign);
    free(st);
    return GCUT_OK;
}

gcut_status gcut__color_model_refine_pair(gcut__color_model *fg, gcut__color_model *bg,
                                          const int64_t ns[2], gcut__gmm_assign_fn assign,
                                          void *arg)
{
    gcut__color_model *m[2] = {fg, bg};
    for (int round = 0; round < GMM_ROUNDS; round++) {
        gcut__price_model p[2];
        gcut__gmm_sums sums[2][GCUT__GMM_MAX_K];
        gcut__price_model_from(fg, &p[0]);
        gcut__price_model_from(bg, &p[1]);
        memset(sums, 0, sizeof sums);
        gcut_status st = assign(arg, p, sums);
        if (st)
            return st;
        for (int t = 0; t < 2; t++) {
            /* The host's double sums of the same terms, exactly. */
            stats st_k[GCUT__GMM_MAX_K];
            for (int k = 0; k < m[t]->k; k++) {
                st_k[k].count = (double)sums[t][k].count;
                for (int c = 0; c < 3; c++)
                    st_k[k].sum[c] = (double)sums[t][k].sum[c];
                for (int e = 0; e < 6; e++)
                    st_k[k].sq[e] = (double)sums[t][k].sq[e];
            }
            gmm_from_stats(m[t], st_k, (double)ns[t]);
        }
    }
    return GCUT_OK;
}

static inline int hist_bin(const uint8_t *p)
{
    return gcut__price_hist_bin(p[0], p[1], p[2]);
}

/* Smooth along one axis with the binomial kernel 1 4 6 4 1 (a Gaussian of
 * one bin): colours a little off the seeds' still count as seen. */
static void smooth_axis(double *h, double *tmp, int stride)
{
    static const double kern[5] = {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0};
    const int nb = 1 << GCUT__HIST_BITS;
    for (int i = 0; i < GCUT__HIST_BINS; i++) {
        int pos = (i / stride) % nb;
        double v = 0;
        for (int t = -2; t <= 2; t++)
            if (pos + t >= 0 && pos + t < nb)
                v += kern[t + 2] * h[i + t * stride];
        tmp[i] = v;
    }
    memcpy(h, tmp, sizeof(double) * GCUT__HIST_BINS);
}

static gcut_status fit_hist(gcut_context *ctx, gcut__color_model *m, const uint8_t *rgb,
                            const uint8_t *label, uint8_t want, int64_t n)
{
    double *h = calloc(GCUT__HIST_BINS, sizeof *h);
    double *tmp = malloc(GCUT__HIST_BINS * sizeof *tmp);
    if (!m->neg_log)
        m->neg_log = malloc(GCUT__HIST_BINS * sizeof *m->neg_log);
    if (!h || !tmp || !m->neg_log) {
        free(h);
        free(tmp);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a histogram");
    }
    for (int64_t i = 0; i < n; i++)
        if (label[i] == want)
            h[hist_bin(rgb + 3 * i)] += 1;
    for (int axis = 0; axis < 3; axis++)
        smooth_axis(h, tmp, 1 << (axis * GCUT__HIST_BITS));
    double total = 0;
    for (int i = 0; i < GCUT__HIST_BINS; i++)
        total += h[i] + HIST_PRIOR;
    for (int i = 0; i < GCUT__HIST_BINS; i++)
        m->neg_log[i] = (float)-log((h[i] + HIST_PRIOR) / total);
    m->fitted = 1;
    free(h);
    free(tmp);
    return GCUT_OK;
}

/* The fit's subsample: of the pixels with label == want, in order, those
 * whose selection number is a multiple of step; for one label, or for two
 * at once (a cut's foreground and background: one pass over the labels
 * for both). Two passes over parts: each part's counts, then (knowing the
 * numbers its pixels start from) its samples, to the places a serial scan
 * would put them. */
typedef struct sample_job {
    const uint8_t *rgb, *label;
    int sides;       /* 1 or 2 */
    uint8_t want[2]; /* the label of each side */
    int64_t step[2];
    int parts;
    int64_t first[2][GCUT__MAX_THREADS + 1]; /* per part: its count, then its first number */
    float *x[2];
} sample_job;

static void count_selected(void *arg, int64_t begin, int64_t end, int part)
{
    sample_job *j = arg;
    int64_t c[2] = {0, 0};
    for (int64_t i = begin; i < end; i++) {
        c[0] += j->label[i] == j->want[0];
        c[1] += j->label[i] == j->want[1];
    }
    j->first[0][part] = c[0];
    j->first[1][part] = j->sides > 1 ? c[1] : 0;
}

static void take_samples(void *arg, int64_t begin, int64_t end, int part)
{
    sample_job *j = arg;
    int64_t number[2], next[2];
    for (int t = 0; t < j->sides; t++) {
        number[t] = j->first[t][part];
        next[t] = (number[t] + j->step[t] - 1) / j->step[t] * j->step[t]; /* the next one taken */
    }
    for (int64_t i = begin; i < end; i++) {
        int t = j->label[i] == j->want[0] ? 0 : j->sides > 1 && j->label[i] == j->want[1] ? 1 : -1;
        if (t < 0)
            continue;
        if (number[t] == next[t]) {
            float *out = j->x[t] + 3 * (number[t] / j->step[t]);
            for (int c = 0; c < 3; c++)
                out[c] = j->rgb[3 * i + c];
            next[t] += j->step[t];
        }
        number[t]++;
    }
}

/* Samples of `sides` labels (want[0], want[1]) into x[t], ns[t]. */
static gcut_status select_samples(gcut_context *ctx, int threads, const uint8_t *rgb,
                                  const uint8_t *label, int64_t n, int sides,
                                  const uint8_t want[2], float *x[2], int64_t ns[2])
{
    sample_job *job = calloc(1, sizeof *job);
    if (!job)
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
    job->rgb = rgb;
    job->label = label;
    job->sides = sides;
    job->want[0] = want[0];
    job->want[1] = sides > 1 ? want[1] : want[0];
    job->parts = gcut__thread_count(threads, n);
    gcut__parallel_for(job->parts, n, count_selected, job);
    gcut_status st = GCUT_OK;
    for (int t = 0; t < sides && !st; t++) {
        int64_t count = 0;
        for (int p = 0; p < job->parts; p++) {
            int64_t c = job->first[t][p];
            job->first[t][p] = count; /* the selection number of the part's first pixel */
            count += c;
        }
        if (count == 0) {
            st = gcut__fail(ctx, GCUT_E_INVALID, "no %s pixels to fit a colour model to",
                            want[t] ? "foreground" : "background");
            break;
        }
        /* An even subsample, deterministic: every step-th selected pixel. */
        job->step[t] = gcut__color_model_sample_step(count);
        ns[t] = (count + job->step[t] - 1) / job->step[t];
        x[t] = job->x[t] = malloc((size_t)ns[t] * 3 * sizeof(float));
        if (!x[t])
            st = gcut__fail(ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
    }
    if (!st)
        gcut__parallel_for(job->parts, n, take_samples, job);
    free(job);
    return st;
}

gcut_status gcut__color_model_samples(gcut_context *ctx, const gcut__color_model *m,
                                      const uint8_t *rgb, const uint8_t *label, uint8_t want,
                                      int64_t n, float **samples, int64_t *count_out)
{
    float *x[2] = {NULL, NULL};
    int64_t ns[2] = {0, 0};
    uint8_t wants[2] = {want, want};
    gcut_status st = select_samples(ctx, m->threads, rgb, label, n, 1, wants, x, ns);
    if (st) {
        free(x[0]);
        x[0] = NULL, ns[0] = 0;
    }
    *samples = x[0];
    *count_out = ns[0];
    return st;
}

gcut_status gcut__color_model_samples_pair(gcut_context *ctx, int threads, const uint8_t *rgb,
                                           const uint8_t *label, int64_t n, float *x[2],
                                           int64_t ns[2])
{
    static const uint8_t wants[2] = {1, 0};
    x[0] = x[1] = NULL;
    ns[0] = ns[1] = 0;
    gcut_status st = select_samples(ctx, threads, rgb, label, n, 2, wants, x, ns);
    if (st) {
        free(x[0]);
        free(x[1]);
        x[0] = x[1] = NULL;
        ns[0] = ns[1] = 0;
    }
    return st;
}

gcut_status gcut__color_model_fit_pair(gcut_context *ctx, gcut__color_model *fg,
                                       gcut__color_model *bg, const uint8_t *rgb,
                                       const uint8_t *label, int64_t n)
{
    if (fg->kind == GCUT_MODEL_HIST || bg->kind == GCUT_MODEL_HIST) {
        gcut_status st = gcut__color_model_fit(ctx, fg, rgb, label, 1, n);
        return st ? st : gcut__color_model_fit(ctx, bg, rgb, label, 0, n);
    }
    float *x[2] = {NULL, NULL};
    int64_t ns[2] = {0, 0};
    gcut_status st = gcut__color_model_samples_pair(ctx, fg->threads, rgb, label, n, x, ns);
    if (!st)
        st = fit_gmm(ctx, fg, x[0], ns[0]);
    if (!st)
        st = fit_gmm(ctx, bg, x[1], ns[1]);
    free(x[0]);
    free(x[1]);
    return st;
}

int64_t gcut__color_model_sample_step(int64_t count)
{
    return (count + FIT_MAX_SAMPLES - 1) / FIT_MAX_SAMPLES;
}

gcut_status gcut__color_model_fit_samples(gcut_context *ctx, gcut__color_model *m,
                                          const float *x, int64_t ns)
{
    if (ns < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "no samples to fit a colour model to");
    return fit_gmm(ctx, m, x, ns);
}

gcut_status gcut__color_model_fit(gcut_context *ctx, gcut__color_model *m, const uint8_t *rgb,
                                  const uint8_t *label, uint8_t want, int64_t n)
{
    if (m->kind == GCUT_MODEL_HIST) {
        int64_t count = 0;
        for (int64_t i = 0; i < n && !count; i++)
            count += label[i] == want;
        if (count == 0)
            return gcut__fail(ctx, GCUT_E_INVALID, "no %s pixels to fit a colour model to",
                              want ? "foreground" : "background");
        return fit_hist(ctx, m, rgb, label, want, n);
    }
    float *x = NULL;
    int64_t ns = 0;
    gcut_status st = gcut__color_model_samples(ctx, m, rgb, label, want, n, &x, &ns);
    if (!st)
        st = fit_gmm(ctx, m, x, ns);
    free(x);
    return st;
}

void gcut__color_model_cost(const gcut__color_model *m, const uint8_t *rgb, int64_t n,
                            float *cost)
{
    gcut__price_model p;
    gcut__price_model_from(m, &p);
    for (int64_t i = 0; i < n; i++)
        cost[i] = gcut__price_colour(&p, rgb + 3 * i);
}

void gcut__color_model_free(gcut__color_model *m)
{
    if (!m)
        return;
    free(m->neg_log);
    m->neg_log = NULL;
}
