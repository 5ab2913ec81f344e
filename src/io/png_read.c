/* PNG reading through libpng: every colour type and bit depth, reduced to 8
 * bits per sample; palette images keep their indices (scribble files are
 * palette PNGs whose indices carry the labels). */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "io/image.h"
#include "io/png_error.h"

/* Palette indices to RGB or RGBA (when the file has transparency). */
static void expand_palette(gcut_image *im, png_colorp palette, int n_palette,
                           png_bytep trans, int n_trans)
{
    size_t n = (size_t)im->width * (size_t)im->height;
    int c = im->channels;
    for (size_t i = 0; i < n; i++) {
        int k = im->indices[i];
        uint8_t *p = im->pixels + i * (size_t)c;
        /* An index past the palette reads as black, as libpng's own expansion does. */
        if (k < n_palette) {
            p[0] = palette[k].red;
            p[1] = palette[k].green;
            p[2] = palette[k].blue;
        } else {
            p[0] = p[1] = p[2] = 0;
        }
        if (c == 4)
            p[3] = k < n_trans ? trans[k] : 255;
    }
}

/* Every chunk's declared length against the bytes the file holds, before
 * libpng sees it: libpng allocates a chunk's buffer from its length before
 * reading it, so a 122-byte file declaring a 1.9 GB chunk had it allocate
 * (and clear) 1.9 GB (found by fuzz/fuzz_png.c). One seek per chunk; the
 * stream is left at the start. */
static gcut_status check_chunk_lengths(gcut_context *ctx, const char *path, FILE *fp)
{
    gcut_status st = GCUT_OK;
    if (fseek(fp, 0, SEEK_END) != 0)
        return GCUT_OK; /* not seekable: libpng's own checks only */
    long size = ftell(fp);
    for (long pos = 8; size >= 0 && pos + 8 <= size;) {
        unsigned char head[8];
        if (fseek(fp, pos, SEEK_SET) != 0 || fread(head, 1, 8, fp) != 8)
            break;
        unsigned long length = (unsigned long)head[0] << 24 | (unsigned long)head[1] << 16 |
                               (unsigned long)head[2] << 8 | head[3];
        /* Short chunks that run past the end are libpng's to report. */
        if (length > 0x7fffffffUL ||
            (length > 65536 && (unsigned long)(size - pos) < 12 + length)) {
            st = gcut__fail(ctx, GCUT_E_FORMAT,
                            "%s: malformed PNG: the chunk at byte %ld declares %lu bytes, but "
                            "the file ends %ld bytes later (truncated or corrupt)",
                            path, pos, length, size - pos - 12 < 0 ? 0 : size - pos - 12);
            break;
        }
        if (!memcmp(head + 4, "IEND", 4))
            break;
        pos += 12 + (long)length;
    }
    rewind(fp);
    return st;
}

gcut_status gcut__png_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out)
{
    gcut_status lengths = check_chunk_lengths(ctx, path, fp);
    if (lengths)
        return lengths;
    gcut__png_error err = {{0}};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, gcut__png_on_error,
                                             gcut__png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    }
    gcut_image *volatile im = NULL;
    png_bytep *volatile rows = NULL;
    gcut_status volatile st = GCUT_OK;
    if (setjmp(png_jmpbuf(png))) {
        /* gcut__image_alloc's own failure jumps here too, with st set. */
        if (!st)
            st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: malformed PNG: %s", path, err.message);
        goto done;
    }
    png_init_io(png, fp);
    /* Our own size limit is checked below; lift libpng's smaller default. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);

    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &color_type, &interlace, NULL, NULL);
    int is_palette = color_type == PNG_COLOR_TYPE_PALETTE;
    if (is_palette) {
        png_set_packing(png);
    } else {
        if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
            png_set_expand_gray_1_2_4_to_8(png);
        if (png_get_valid(png, info, PNG_INFO_tRNS))
            png_set_tRNS_to_alpha(png);
        if (depth == 16)
            png_set_scale_16(png);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels;
    png_colorp palette = NULL;
    png_bytep trans = NULL;
    int n_palette = 0, n_trans = 0;
    if (is_palette) {
        if (!png_get_PLTE(png, info, &palette, &n_palette))
            n_palette = 0; /* libpng refuses a palette image without PLTE first */
        if (png_get_valid(png, info, PNG_INFO_tRNS))
            png_get_tRNS(png, info, &trans, &n_trans, NULL);
        channels = n_trans > 0 ? 4 : 3;
    } else {
        channels = png_get_channels(png, info);
    }
    gcut_image *img = NULL;
    gcut_status ast = gcut__image_alloc(ctx, path, width, height, channels, is_palette, &img);
    if (ast) {
        st = ast;
        goto done;
    }
    im = img;
    im->bit_depth = depth;
    rows = malloc((size_t)height * sizeof *rows);
    if (!rows) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
        goto done;
    }
    size_t row_bytes = (size_t)width * (size_t)(is_palette ? 1 : channels);
    if (png_get_rowbytes(png, info) != row_bytes) {
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: unexpected PNG row size", path);
        goto done;
    }
    uint8_t *base = is_palette ? im->indices : im->pixels;
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = base + (size_t)y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    if (is_palette)
        expand_palette(im, palette, n_palette, trans, n_trans);

done:
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    if (st) {
        gcut_image_destroy(im);
        return st;
    }
    *out = im;
    return GCUT_OK;
}
