/* JPEG reading through libjpeg(-turbo). libjpeg's default error handler
 * calls exit(); ours jumps back instead, and treats libjpeg's warnings
 * (premature end of data, corrupt entropy data) as errors too: a truncated
 * photograph would otherwise come back silently grey at the bottom. */
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */
#include <stddef.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>

#include "core/memory_budget.h"
#include "io/image.h"

typedef struct jpeg_err {
    struct jpeg_error_mgr mgr; /* first, so that the cinfo->err pointer casts back */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_err;

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_err *e = (jpeg_err *)cinfo->err;
    e->mgr.format_message(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level)
{
    if (level < 0) /* a warning: the data is damaged */
        on_error_exit(cinfo);
}

gcut_status gcut__jpeg_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_err err;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_error_exit;
    err.mgr.emit_message = on_message;
    gcut_image *volatile im = NULL;
    gcut_status volatile st = GCUT_OK;
    if (setjmp(err.jump)) {
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: malformed JPEG: %s", path, err.message);
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, fp);
    jpeg_read_header(&cinfo, TRUE);
    /* Grey stays grey; YCbCr, CMYK and the rest come out as RGB. */
    int grey = cinfo.jpeg_color_space == JCS_GRAYSCALE;
    cinfo.out_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_calc_output_dimensions(&cinfo);
    if (cinfo.progressive_mode) {
        /* libjpeg keeps every coefficient of a progressive file (2 bytes a
         * sample, whole image) until the last scan: asked of the budget
         * with the pixels, before libjpeg allocates it. */
        int64_t samples = (int64_t)cinfo.image_width * cinfo.image_height * cinfo.num_components;
        char what[300];
        snprintf(what, sizeof what, "%s: a progressive JPEG of %ux%u pixels", path,
                 (unsigned)cinfo.image_width, (unsigned)cinfo.image_height);
        gcut_status bst = gcut__memory_check(ctx, what, 3 * samples);
        if (bst) {
            st = bst;
            goto done;
        }
    }
    gcut_image *img = NULL;
    gcut_status ast = gcut__image_alloc(ctx, path, cinfo.output_width, cinfo.output_height,
                                        grey ? 1 : 3, 0, &img);
    if (ast) {
        st = ast;
        goto done;
    }
    im = img;
    im->bit_depth = cinfo.data_precision;
    jpeg_start_decompress(&cinfo);
    if ((int)cinfo.output_components != im->channels) {
        st = gcut__fail(ctx, GCUT_E_FORMAT, "%s: JPEG decoded to %d components, expected %d",
                        path, cinfo.output_components, im->channels);
        goto done;
    }
    size_t row_bytes = (size_t)im->width * (size_t)im->channels;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = im->pixels + (size_t)cinfo.output_scanline * row_bytes;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);

done:
    jpeg_destroy_decompress(&cinfo);
    if (st) {
        gcut_image_destroy(im);
        return st;
    }
    *out = im;
    return GCUT_OK;
}
