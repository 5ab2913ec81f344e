/* Images: loading by content (PNG, JPEG, PNM), saving by extension, and the
 * accessors of the public gcut_image handle. */
#include "io/image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/memory_budget.h"
#include "io/atomic_file.h"
#include "core/big_alloc.h"

gcut_status gcut__image_alloc(gcut_context *ctx, const char *path, int64_t width,
                              int64_t height, int channels, int with_indices, gcut_image **out)
{
    *out = NULL;
    if (width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_FORMAT, "%s: image size %lldx%lld is empty", path,
                          (long long)width, (long long)height);
    /* Checked before any allocation: both factors are positive, so the
     * division test is exact. */
    if (width > GCUT_IMAGE_MAX_PIXELS / height || width * height > GCUT_IMAGE_MAX_PIXELS ||
        (uint64_t)(width * height) > SIZE_MAX / (uint64_t)channels)
        return gcut__fail(ctx, GCUT_E_RANGE,
                          "%s: image size %lldx%lld is over the limit of %lld pixels", path,
                          (long long)width, (long long)height, (long long)GCUT_IMAGE_MAX_PIXELS);
    /* The pixels, the palette indices and a reader's row pointers. */
    char what[300];
    snprintf(what, sizeof what, "%s: an image of %lldx%lld pixels", path, (long long)width,
             (long long)height);
    gcut_status budget = gcut__memory_check(
        ctx, what, width * height * (channels + (with_indices ? 1 : 0)) + height * 8);
    if (budget)
        return budget;
    gcut_image *im = calloc(1, sizeof *im);
    size_t n = (size_t)(width * height);
    if (im) {
        im->width = (int)width;
        im->height = (int)height;
        im->channels = channels;
        im->bit_depth = 8;
        im->pixels = gcut__big_alloc(n * (size_t)channels);
        im->indices = with_indices ? gcut__big_alloc(n) : NULL;
        im->path = malloc(strlen(path) + 1);
    }
    if (!im || !im->pixels || (with_indices && !im->indices) || !im->path) {
        gcut_image_destroy(im);
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory for %lldx%lld pixels", path,
                          (long long)width, (long long)height);
    }
    memcpy(im->path, path, strlen(path) + 1);
    *out = im;
    return GCUT_OK;
}

void gcut_image_destroy(gcut_image *im)
{
    if (!im)
        return;
    free(im->pixels);
    free(im->indices);
    free(im->path);
    free(im);
}

int gcut_image_width(const gcut_image *im) { return im ? im->width : 0; }
int gcut_image_height(const gcut_image *im) { return im ? im->height : 0; }
int gcut_image_channels(const gcut_image *im) { return im ? im->channels : 0; }
int gcut_image_bit_depth(const gcut_image *im) { return im ? im->bit_depth : 0; }
const uint8_t *gcut_image_pixels(const gcut_image *im) { return im ? im->pixels : NULL; }
const uint8_t *gcut_image_indices(const gcut_image *im) { return im ? im->indices : NULL; }
const char *gcut_image_path(const gcut_image *im) { return im ? im->path : ""; }

gcut_status gcut_image_load(gcut_context *ctx, const char *path, gcut_image **out)
{
    if (!out)
        return gcut__fail(ctx, GCUT_E_INVALID, "image: no place for the result");
    *out = NULL;
    if (!path)
        return gcut__fail(ctx, GCUT_E_INVALID, "image: no path given");
    gcut__clear_error(ctx);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gcut__fail(ctx, GCUT_E_IO, "cannot open %s: %s", path, strerror(errno));
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, fp);
    rewind(fp);
    gcut_status st;
    /* By content, not by name: a .png that is really a JPEG still loads. */
    if (got >= 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8))
        st = gcut__png_read(ctx, path, fp, out);
    else if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff)
        st = gcut__jpeg_read(ctx, path, fp, out);
    else if (got >= 2 && magic[0] == 'P' && (magic[1] == '5' || magic[1] == '6'))
        st = gcut__pnm_read(ctx, path, fp, out);
    else if (got == 0)
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: empty file", path);
    else
        st = gcut__fail(ctx, GCUT_E_FORMAT,
                        "%s: not an image gcut reads (PNG, JPEG, PNM P5/P6)", path);
    fclose(fp);
    return st;
}

/* Binary PNM: P5 for grey, P6 for RGB (alpha dropped). */
static gcut_status pnm_write(gcut_context *ctx, const char *path, FILE *fp, const uint8_t *px,
                             int width, int height, int channels, size_t stride, int want_rgb)
{
    int out_c = want_rgb ? 3 : 1;
    fprintf(fp, "P%d\n%d %d\n255\n", want_rgb ? 6 : 5, width, height);
    unsigned char *row = malloc((size_t)width * (size_t)out_c);
    if (!row)
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    for (int y = 0; y < height; y++) {
        const uint8_t *src = px + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = src + (size_t)x * channels;
            if (want_rgb) {
                int c3 = channels >= 3;
                row[3 * x] = p[0];
                row[3 * x + 1] = c3 ? p[1] : p[0];
                row[3 * x + 2] = c3 ? p[2] : p[0];
            } else {
                /* ITU-R BT.601 luma for colour input. */
                row[x] = channels >= 3
                             ? (uint8_t)((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000)
                             : p[0];
            }
        }
        fwrite(row, (size_t)out_c, (size_t)width, fp);
    }
    free(row);
    return GCUT_OK;
}

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

static gcut_status check_buffer(gcut_context *ctx, const char *path, const uint8_t *pixels,
                                int width, int height, int channels, size_t stride)
{
    if (!path || !pixels)
        return gcut__fail(ctx, GCUT_E_INVALID, "image save: no %s given",
                          path ? "pixels" : "path");
    if (width < 1 || height < 1 || channels < 1 || channels > 4)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "%s: cannot save %dx%d pixels of %d channels", path, width, height,
                          channels);
    if (stride < (size_t)width * (size_t)channels)
        return gcut__fail(ctx, GCUT_E_INVALID, "%s: stride %zu is under a row of %d bytes",
                          path, stride, width * channels);
    return GCUT_OK;
}

gcut_status gcut_image_save_png(gcut_context *ctx, const char *path, const uint8_t *pixels,
                                int width, int height, int channels, size_t stride_bytes)
{
    gcut__clear_error(ctx);
    gcut_status st = check_buffer(ctx, path, pixels, width, height, channels, stride_bytes);
    if (st)
        return st;
    gcut__atomic_file af;
    if ((st = gcut__atomic_open(ctx, path, &af)))
        return st;
    st = gcut__png_write(ctx, path, af.fp, pixels, width, height, channels, stride_bytes);
    if (st) {
        gcut__atomic_abort(&af);
        return st;
    }
    return gcut__atomic_commit(ctx, &af);
}

gcut_status gcut_image_save(gcut_context *ctx, const char *path, const uint8_t *pixels,
                            int width, int height, int channels, size_t stride_bytes)
{
    gcut__clear_error(ctx);
    gcut_status st = check_buffer(ctx, path, pixels, width, height, channels, stride_bytes);
    if (st)
        return st;
    const char *ext = extension(path);
    const char *format = NULL;
    int pnm = 0;
    if (!strcasecmp(ext, "png"))
        format = "png";
    else if (!strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg"))
        format = "jpg";
    else if (!strcasecmp(ext, "bmp"))
        format = "bmp";
    else if (!strcasecmp(ext, "pgm"))
        pnm = 5;
    else if (!strcasecmp(ext, "ppm"))
        pnm = 6;
    else
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "%s: unknown image extension '%s' (use .png, .jpg, .bmp, .pgm or .ppm)",
                          path, ext);
    if (format && strcmp(format, "png") && !gcut_image_stb_built())
        return gcut__fail(ctx, GCUT_E_UNSUPPORTED,
                          "%s: this build writes only PNG and PNM (no stb_image_write for .%s)",
                          path, ext);
    gcut__atomic_file af;
    if ((st = gcut__atomic_open(ctx, path, &af)))
        return st;
    if (pnm)
        st = pnm_write(ctx, path, af.fp, pixels, width, height, channels, stride_bytes, pnm == 6);
    else if (gcut_image_stb_built() && strcmp(format, "png")) /* PNG: ours, on threads */
        st = gcut__stb_write(ctx, path, af.fp, format, pixels, width, height, channels,
                             stride_bytes);
    else
        st = gcut__png_write(ctx, path, af.fp, pixels, width, height, channels, stride_bytes);
    if (st) {
        gcut__atomic_abort(&af);
        return st;
    }
    return gcut__atomic_commit(ctx, &af);
}
