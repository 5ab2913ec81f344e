/* Middlebury .flo files (Baker et al.): float32 tag 202021.25, int32 width,
 * int32 height, then float32 u, v interleaved, row-major, little-endian as
 * written by the reference code on x86 (and read the same way here). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/memory_budget.h"
#include "io/atomic_file.h"

#define FLO_TAG 202021.25f

/* The tag's bytes, so that a file is recognised without float compares. */
static const uint8_t flo_tag_bytes[4] = {'P', 'I', 'E', 'H'};

static int32_t le_i32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24);
}

static void put_le_i32(uint8_t *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    b[0] = (uint8_t)u, b[1] = (uint8_t)(u >> 8), b[2] = (uint8_t)(u >> 16),
    b[3] = (uint8_t)(u >> 24);
}

static float le_f32(const uint8_t *b)
{
    uint32_t u = (uint32_t)le_i32(b);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put_le_f32(uint8_t *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le_i32(b, (int32_t)u);
}

gcut_status gcut_flow_read(gcut_context *ctx, const char *path, int *width, int *height,
                           float **flow)
{
    gcut__clear_error(ctx);
    if (!path || !width || !height || !flow)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow read: a NULL argument");
    *flow = NULL;
    *width = *height = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gcut__fail(ctx, GCUT_E_IO, "cannot read %s: %s", path, strerror(errno));
    uint8_t head[12];
    size_t got = fread(head, 1, sizeof head, fp);
    gcut_status st = GCUT_OK;
    float *uv = NULL;
    if (got < 4 || memcmp(head, flo_tag_bytes, 4)) {
        st = got < 4 && memcmp(head, flo_tag_bytes, got) == 0 && got > 0
                 ? gcut__fail(ctx, GCUT_E_TRUNCATED, "%s: ends at byte %zu inside the tag", path,
                              got)
                 : gcut__fail(ctx, GCUT_E_FORMAT,
                              "%s: byte 0: not a .flo file (no tag 202021.25 'PIEH')", path);
        goto done;
    }
    if (got < sizeof head) {
        st = gcut__fail(ctx, GCUT_E_TRUNCATED, "%s: ends at byte %zu inside the header (12 bytes)",
                        path, got);
        goto done;
    }
    int32_t w = le_i32(head + 4), h = le_i32(head + 8);
    if (w < 1 || h < 1) {
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: byte %d: size %d x %d (must be positive)", path,
                        w < 1 ? 4 : 8, (int)w, (int)h);
        goto done;
    }
    if ((int64_t)w * h > GCUT_IMAGE_MAX_PIXELS) {
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: byte 4: size %d x %d is over the limit of %lld "
                        "pixels", path, (int)w, (int)h, (long long)GCUT_IMAGE_MAX_PIXELS);
        goto done;
    }
    size_t n = (size_t)w * (size_t)h * 2;
    /* A regular file shorter than announced fails before the allocation. */
    long here = ftell(fp);
    if (here >= 0 && fseek(fp, 0, SEEK_END) == 0) {
        long size = ftell(fp);
        if (fseek(fp, here, SEEK_SET) != 0) {
            st = gcut__fail(ctx, GCUT_E_IO, "cannot read %s: seek failed", path);
            goto done;
        }
        if (size >= 0 && (uint64_t)size < 12 + 4 * (uint64_t)n) {
            st = gcut__fail(ctx, GCUT_E_TRUNCATED,
                            "%s: ends at byte %ld, %d x %d vectors need %llu bytes", path, size,
                            (int)w, (int)h, (unsigned long long)(12 + 4 * (uint64_t)n));
            goto done;
        }
    }
    char what[300];
    snprintf(what, sizeof what, "%s: %d x %d flow vectors", path, (int)w, (int)h);
    if ((st = gcut__memory_check(ctx, what, (int64_t)(n * sizeof *uv) + 65536 * 4)))
        goto done;
    uv = malloc(n * sizeof *uv);
    uint8_t *raw = malloc(n > 65536 ? 65536 * 4 : n * 4);
    if (!uv || !raw) {
        free(raw);
        st = gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory for %d x %d vectors", path, (int)w,
                        (int)h);
        goto done;
    }
    /* In chunks, so that a huge announced size fails at the short read, not
     * by reading the whole request into memory twice. */
    for (size_t at = 0; at < n && !st;) {
        size_t want = n - at < 65536 ? n - at : 65536;
        size_t in = fread(raw, 4, want, fp);
        for (size_t i = 0; i < in; i++)
            uv[at + i] = le_f32(raw + 4 * i);
        if (in < want)
            st = gcut__fail(ctx, GCUT_E_TRUNCATED,
                            "%s: ends at byte %lld, %d x %d vectors need %lld bytes", path,
                            (long long)(12 + 4 * (at + in)), (int)w, (int)h,
                            (long long)(12 + 4 * n));
        at += in;
    }
    free(raw);
    if (!st && fgetc(fp) != EOF)
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: byte %lld: data after the %d x %d vectors",
                        path, (long long)(12 + 4 * n), (int)w, (int)h);
    if (!st && ferror(fp))
        st = gcut__fail(ctx, GCUT_E_IO, "cannot read %s", path);
    if (!st) {
        *width = w, *height = h, *flow = uv;
        uv = NULL;
    }
done:
    free(uv);
    fclose(fp);
    return st;
}

void gcut_flow_free(float *flow) { free(flow); }

gcut_status gcut_flow_write(gcut_context *ctx, const char *path, const float *flow, int width,
                            int height)
{
    gcut__clear_error(ctx);
    if (!path || !flow || width < 1 || height < 1 ||
        (int64_t)width * height > GCUT_IMAGE_MAX_PIXELS)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow write: bad arguments (%d x %d)", width,
                          height);
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st)
        return st;
    uint8_t head[12], buf[4096];
    put_le_f32(head, FLO_TAG);
    put_le_i32(head + 4, width);
    put_le_i32(head + 8, height);
    fwrite(head, 1, sizeof head, af.fp);
    size_t n = (size_t)width * (size_t)height * 2;
    for (size_t at = 0; at < n;) {
        size_t k = n - at < sizeof buf / 4 ? n - at : sizeof buf / 4;
        for (size_t i = 0; i < k; i++)
            put_le_f32(buf + 4 * i, flow[at + i]);
        fwrite(buf, 4, k, af.fp);
        at += k;
    }
    return gcut__atomic_commit(ctx, &af);
}
