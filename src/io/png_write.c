/* 8-bit PNG writing: masks, label maps and overlays, compressed on threads.
 *
 * A PNG's image data is one zlib stream of filtered rows, cut into IDAT
 * chunks anywhere. The rows are taken in strips of STRIP_BYTES (whole
 * rows); each strip is filtered and deflated on its own (raw deflate, a
 * fresh window, ended by a sync flush so that the pieces concatenate into
 * one stream, the last one by the stream's end) and becomes one IDAT
 * chunk; the zlib header and the Adler-32 of all the filtered bytes
 * (combined from the strips') are IDAT chunks of their own. The strips
 * depend on the image alone, never on the thread count: the same image is
 * the same file on any machine. Losing the window at a strip's start costs
 * little: deflate looks back 32 KiB at most.
 *
 * Filters: grey images (masks, label maps: flat runs) use "up" on every
 * row, which compresses them as well as trying all five at a fifth of the
 * work; colour images pick per row the filter with the least sum of
 * absolute values, libpng's own heuristic. zlib's fastest level, 1: on a
 * 4 MP overlay it writes 5% more bytes than level 3 in two thirds of the
 * time. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/parallel.h"
#include "io/image.h"

#define STRIP_BYTES ((size_t)128 << 10)

typedef struct png_strip {
    uint8_t *out; /* the deflated strip */
    size_t out_len;
    uLong adler;   /* of its filtered bytes */
    size_t raw_len;
    uLong crc;     /* of "IDAT" and out */
    int failed;    /* out of memory, or zlib refused */
} png_strip;

typedef struct png_job {
    const uint8_t *pixels;
    size_t stride, row_bytes; /* row_bytes: width * channels */
    int width, height, channels, rows_per_strip, strips;
    png_strip *strip;
} png_job;

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row `cur` (prev: the row above, NULL for the first: zeros) with filter
 * f into out. */
static void filter_row(int f, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp,
                       uint8_t *out)
{
    size_t head = (size_t)bpp < n ? (size_t)bpp : n; /* the bytes with no left neighbour */
    switch (prev ? f : f == 2 ? 0 : f == 4 ? 1 : f) { /* no row above: up = none, paeth = sub */
    case 0: memcpy(out, cur, n); break;
    case 1:
        memcpy(out, cur, head);
        for (size_t i = head; i < n; i++)
            out[i] = (uint8_t)(cur[i] - cur[i - bpp]);
        break;
    case 2:
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(cur[i] - prev[i]);
        break;
    case 3:
        for (size_t i = 0; i < n; i++) {
            int a = i >= head ? cur[i - bpp] : 0, b = prev ? prev[i] : 0;
            out[i] = (uint8_t)(cur[i] - (a + b) / 2);
        }
        break;
    default:
        for (size_t i = 0; i < head; i++)
            out[i] = (uint8_t)(cur[i] - prev[i]); /* paeth(0, b, 0) = b */
        for (size_t i = head; i < n; i++)
            out[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
    }
}

/* The sum of filtered bytes read as signed: the smaller, the better they
 * compress (libpng's heuristic). */
static unsigned long signed_sum(const uint8_t *v, size_t n)
{
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i] < 128 ? v[i] : 256u - v[i];
    return sum;
}

/* The filtered bytes of rows [y0, y1): each a filter byte and the row. */
static void filter_rows(const png_job *j, int y0, int y1, uint8_t *raw)
{
    const size_t n = j->row_bytes;
    uint8_t *trial = j->channels > 2 ? raw + (size_t)(y1 - y0) * (n + 1) : NULL;
    for (int y = y0; y < y1; y++) {
        const uint8_t *cur = j->pixels + (size_t)y * j->stride;
        const uint8_t *prev = y ? cur - j->stride : NULL;
        uint8_t *row = raw + (size_t)(y - y0) * (n + 1);
        if (!trial) {
            row[0] = 2; /* up */
            filter_row(2, cur, prev, n, j->channels, row + 1);
            continue;
        }
        unsigned long best = ULONG_MAX;
        for (int f = 0; f < 5; f++) {
            filter_row(f, cur, prev, n, j->channels, trial);
            unsigned long sum = signed_sum(trial, n);
            if (sum < best) {
                best = sum;
                row[0] = (uint8_t)f;
                memcpy(row + 1, trial, n);
            }
        }
    }
}

static void deflate_strips(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const png_job *j = arg;
    for (int64_t k = begin; k < end; k++) {
        png_strip *s = &j->strip[k];
        int y0 = (int)k * j->rows_per_strip;
        int y1 = y0 + j->rows_per_strip < j->height ? y0 + j->rows_per_strip : j->height;
        s->raw_len = (size_t)(y1 - y0) * (j->row_bytes + 1);
        /* The filtered rows, and behind them one row to try filters in. */
        uint8_t *raw = malloc(s->raw_len + j->row_bytes);
        z_stream z;
        memset(&z, 0, sizeof z);
        if (!raw || deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(raw);
            s->failed = 1;
            continue;
        }
        filter_rows(j, y0, y1, raw);
        s->adler = adler32(adler32(0L, Z_NULL, 0), raw, (uInt)s->raw_len);
        /* Room for the sync flush's marker too. */
        size_t cap = deflateBound(&z, (uLong)s->raw_len) + 16;
        s->out = malloc(cap);
        if (s->out) {
            z.next_in = raw;
            z.avail_in = (uInt)s->raw_len;
            z.next_out = s->out;
            z.avail_out = (uInt)cap;
            int last = k + 1 == j->strips;
            int zr = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
            s->failed = last ? zr != Z_STREAM_END : zr != Z_OK || z.avail_in != 0;
            s->out_len = cap - z.avail_out;
            s->crc = crc32(crc32(0L, (const Bytef *)"IDAT", 4), s->out, (uInt)s->out_len);
            /* Held until every strip is done: only its compressed size. */
            uint8_t *fit = s->out_len ? realloc(s->out, s->out_len) : NULL;
            if (fit)
                s->out = fit;
        } else {
            s->failed = 1;
        }
        deflateEnd(&z);
        free(raw);
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One chunk; `crc` of its type and data when known, else computed. */
static int put_chunk(FILE *fp, const char *type, const uint8_t *data, size_t len, uLong crc,
                     int crc_known)
{
    uint8_t head[8], tail[4];
    put32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    if (!crc_known) {
        crc = crc32(0L, (const Bytef *)type, 4);
        if (len) /* (zlib's crc32 of no buffer is its start value, not crc) */
            crc = crc32(crc, data, (uInt)len);
    }
    put32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, fp) == 8 && (!len || fwrite(data, 1, len, fp) == len) &&
           fwrite(tail, 1, 4, fp) == 4;
}

gcut_status gcut__png_write(gcut_context *ctx, const char *path, FILE *fp, const uint8_t *pixels,
                            int width, int height, int channels, size_t stride_bytes)
{
    static const uint8_t color_types[5] = {0, 0, 4, 2, 6}; /* grey, grey+alpha, RGB, RGBA */
    png_job j = {pixels, stride_bytes, (size_t)width * (size_t)channels, width, height, channels,
                 0, 0, NULL};
    /* A row and its filter byte fit a strip's 32-bit zlib counts however
     * wide the image is (GCUT_IMAGE_MAX_PIXELS keeps rows far below). */
    size_t rows = STRIP_BYTES / (j.row_bytes + 1);
    j.rows_per_strip = rows < 1 ? 1 : rows > (size_t)height ? height : (int)rows;
    j.strips = (height + j.rows_per_strip - 1) / j.rows_per_strip;
    j.strip = calloc((size_t)j.strips, sizeof *j.strip);
    if (!j.strip)
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    int64_t bytes = (int64_t)(j.row_bytes + 1) * height;
    int threads = gcut__thread_count(ctx ? ctx->options.threads : 0, bytes);
    gcut__parallel_for(threads < j.strips ? threads : j.strips, j.strips, deflate_strips, &j);

    gcut_status st = GCUT_OK;
    for (int k = 0; k < j.strips && !st; k++)
        if (j.strip[k].failed)
            st = gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory compressing the image", path);
    if (!st) {
        static const uint8_t signature[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
        /* zlib's header: deflate with a 32 KiB window, no dictionary
         * (0x7801: its check bits make it a multiple of 31). */
        static const uint8_t zlib_head[2] = {0x78, 0x01};
        uint8_t ihdr[13], adler_be[4];
        put32(ihdr, (uint32_t)width);
        put32(ihdr + 4, (uint32_t)height);
        ihdr[8] = 8, ihdr[9] = color_types[channels], ihdr[10] = ihdr[11] = ihdr[12] = 0;
        uLong adler = j.strip[0].adler;
        for (int k = 1; k < j.strips; k++)
            adler = adler32_combine(adler, j.strip[k].adler, (z_off_t)j.strip[k].raw_len);
        put32(adler_be, (uint32_t)adler);
        int ok = fwrite(signature, 1, 8, fp) == 8 && put_chunk(fp, "IHDR", ihdr, 13, 0, 0) &&
                 put_chunk(fp, "IDAT", zlib_head, 2, 0, 0);
        for (int k = 0; k < j.strips && ok; k++)
            ok = put_chunk(fp, "IDAT", j.strip[k].out, j.strip[k].out_len, j.strip[k].crc, 1);
        ok = ok && put_chunk(fp, "IDAT", adler_be, 4, 0, 0) && put_chunk(fp, "IEND", NULL, 0, 0, 0);
        if (!ok)
            st = gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", path, strerror(errno));
    }
    for (int k = 0; k < j.strips; k++)
        free(j.strip[k].out);
    free(j.strip);
    return st;
}
