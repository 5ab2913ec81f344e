/* Binary PNM reading: P5 (grey) and P6 (RGB), maxval 1..65535 (two bytes
 * per sample, big-endian, above 255), '#' comments in the header. Samples
 * are rescaled to 8 bits with rounding. */
#include <ctype.h>
#include <stdlib.h>

#include "io/image.h"

/* One header number, skipping white space and comments. -1 on a bad one. */
static long read_number(FILE *fp)
{
    int c = fgetc(fp);
    for (;;) {
        while (c != EOF && isspace(c))
            c = fgetc(fp);
        if (c != '#')
            break;
        while (c != EOF && c != '\n' && c != '\r')
            c = fgetc(fp);
    }
    if (c == EOF || !isdigit(c))
        return -1;
    long v = 0;
    while (c != EOF && isdigit(c)) {
        v = v * 10 + (c - '0');
        if (v > 100000000L)
            return -1;
        c = fgetc(fp);
    }
    /* Exactly one white-space character ends the header's last number. */
    if (c != EOF && !isspace(c))
        return -1;
    return v;
}

gcut_status gcut__pnm_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out)
{
    char magic[2];
    if (fread(magic, 1, 2, fp) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6'))
        return gcut__fail(ctx, GCUT_E_FORMAT, "%s: not a binary PNM (P5 or P6)", path);
    int channels = magic[1] == '6' ? 3 : 1;
    long width = read_number(fp), height = read_number(fp), maxval = read_number(fp);
    if (width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_FORMAT, "%s: bad PNM size in the header", path);
    if (maxval < 1 || maxval > 65535)
        return gcut__fail(ctx, GCUT_E_FORMAT, "%s: PNM maxval %ld is not in 1..65535", path,
                          maxval);
    gcut_image *im = NULL;
    gcut_status st = gcut__image_alloc(ctx, path, width, height, channels, 0, &im);
    if (st)
        return st;
    im->bit_depth = maxval > 255 ? 16 : 8;
    size_t bytes_per = maxval > 255 ? 2 : 1;
    size_t row_samples = (size_t)width * (size_t)channels;
    unsigned char *row = malloc(row_samples * bytes_per);
    if (!row) {
        gcut_image_destroy(im);
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    }
    for (long y = 0; y < height && !st; y++) {
        if (fread(row, bytes_per, row_samples, fp) != row_samples) {
            st = gcut__fail(ctx, GCUT_E_FORMAT,
                            "%s: PNM data ends at row %ld of %ld (truncated file)", path, y,
                            height);
            break;
        }
        uint8_t *dst = im->pixels + (size_t)y * row_samples;
        for (size_t i = 0; i < row_samples; i++) {
            long v = bytes_per == 2 ? ((long)row[2 * i] << 8) | row[2 * i + 1] : row[i];
            if (v > maxval) {
                st = gcut__fail(ctx, GCUT_E_FORMAT,
                                "%s: sample %ld at pixel (%zu, %ld) is over maxval %ld", path, v,
                                i / (size_t)channels, y, maxval);
                break;
            }
            dst[i] = (uint8_t)((v * 255 + maxval / 2) / maxval);
        }
    }
    free(row);
    if (st) {
        gcut_image_destroy(im);
        return st;
    }
    *out = im;
    return GCUT_OK;
}
