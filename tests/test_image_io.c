/* Image loading and saving: every PNG kind (made here with libpng), JPEG,
 * PNM, and corrupt, truncated and oversized files of each, whose errors
 * must name the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "gcut.h"
#include "temp_dir.h"

static gcut_context *ctx;
static char dir[64];

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    temp_dir_make(dir, sizeof dir, "imageio");
}

static void teardown(void)
{
    temp_dir_remove(dir);
    gcut_context_destroy(ctx);
}

TestSuite(image_io, .init = setup, .fini = teardown);

static const char *path_of(const char *name)
{
    static char path[4][128];
    static int turn;
    turn = (turn + 1) % 4;
    snprintf(path[turn], sizeof path[turn], "%s/%s", dir, name);
    return path[turn];
}

/* The 8-bit value expected at sample s of pixel (x, y). */
static int pattern(int x, int y, int s) { return (x * 37 + y * 11 + s * 71) & 255; }

/* Write a PNG of the pattern: `depth` bits, samples of `depth` bits taken
 * from the pattern's top bits (16-bit: v * 257, exact after reduction). */
static void write_png(const char *path, int w, int h, int color_type, int depth, int interlace,
                      int n_palette, int n_trans, int grey_trans)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info);
    cr_assert_eq(setjmp(png_jmpbuf(png)), 0);
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, color_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[256];
        png_byte trans[256];
        for (int i = 0; i < n_palette; i++) {
            pal[i].red = (png_byte)(i * 3), pal[i].green = (png_byte)(255 - i);
            pal[i].blue = (png_byte)(i * 7);
            trans[i] = (png_byte)(255 - i * 2);
        }
        png_set_PLTE(png, info, pal, n_palette);
        if (n_trans)
            png_set_tRNS(png, info, trans, n_trans, NULL);
    }
    if (grey_trans) {
        png_color_16 tv = {0};
        tv.gray = 0;
        png_set_tRNS(png, info, NULL, 0, &tv);
    }
    png_write_info(png, info);
    int channels = color_type == PNG_COLOR_TYPE_GRAY         ? 1
                   : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                   : color_type == PNG_COLOR_TYPE_RGB        ? 3
                   : color_type == PNG_COLOR_TYPE_RGB_ALPHA  ? 4
                                                             : 1;
    size_t rowbytes = png_get_rowbytes(png, info);
    png_bytep *rows = malloc((size_t)h * sizeof *rows);
    for (int y = 0; y < h; y++) {
        rows[y] = calloc(rowbytes, 1);
        for (int x = 0; x < w; x++)
            for (int s = 0; s < channels; s++) {
                int v = pattern(x, y, s);
                if (color_type == PNG_COLOR_TYPE_PALETTE)
                    v = v % n_palette;
                if (depth == 16) {
                    int i = (x * channels + s) * 2;
                    rows[y][i] = (png_byte)v, rows[y][i + 1] = (png_byte)v; /* v * 257 */
                } else if (depth == 8) {
                    rows[y][x * channels + s] = (png_byte)v;
                } else {
                    int top = color_type == PNG_COLOR_TYPE_PALETTE ? v & ((1 << depth) - 1)
                                                                   : v >> (8 - depth);
                    int bit = x * depth;
                    rows[y][bit / 8] |= (png_byte)(top << (8 - depth - bit % 8));
                }
            }
    }
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    for (int y = 0; y < h; y++)
        free(rows[y]);
    free(rows);
    cr_assert_eq(fclose(fp), 0);
}

/* The expected 8-bit grey of a low-depth sample: its top bits repeated. */
static int expand_bits(int v, int depth)
{
    int top = v >> (8 - depth), out = 0;
    for (int b = 0; b < 8; b += depth)
        out = (out << depth) | top;
    return out;
}

static gcut_image *load_ok(const char *path)
{
    gcut_image *im = NULL;
    gcut_status st = gcut_image_load(ctx, path, &im);
    cr_assert_eq(st, GCUT_OK, "%s: %s", path, gcut_last_error(ctx));
    cr_assert_not_null(im);
    return im;
}

static void check_direct_png(int color_type, int depth, int channels, int interlace)
{
    const char *p = path_of("kind.png");
    write_png(p, 13, 7, color_type, depth, interlace, 0, 0, 0);
    gcut_image *im = load_ok(p);
    cr_assert_eq(gcut_image_width(im), 13);
    cr_assert_eq(gcut_image_height(im), 7);
    cr_assert_eq(gcut_image_channels(im), channels, "type %d depth %d", color_type, depth);
    cr_assert_eq(gcut_image_bit_depth(im), depth);
    cr_assert_null(gcut_image_indices(im));
    const uint8_t *px = gcut_image_pixels(im);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 13; x++)
            for (int s = 0; s < channels; s++) {
                int want = pattern(x, y, s);
                if (depth < 8)
                    want = expand_bits(want, depth);
                cr_assert_eq(px[(y * 13 + x) * channels + s], want,
                             "type %d depth %d at (%d,%d,%d)", color_type, depth, x, y, s);
            }
    gcut_image_destroy(im);
}

Test(image_io, reads_grey_png_of_every_depth)
{
    for (int depth = 1; depth <= 16; depth *= 2)
        check_direct_png(PNG_COLOR_TYPE_GRAY, depth, 1, 0);
}

Test(image_io, reads_grey_alpha_rgb_rgba_png_8_and_16_bit)
{
    for (int depth = 8; depth <= 16; depth += 8) {
        check_direct_png(PNG_COLOR_TYPE_GRAY_ALPHA, depth, 2, 0);
        check_direct_png(PNG_COLOR_TYPE_RGB, depth, 3, 0);
        check_direct_png(PNG_COLOR_TYPE_RGB_ALPHA, depth, 4, 0);
    }
}

Test(image_io, reads_interlaced_png)
{
    check_direct_png(PNG_COLOR_TYPE_RGB, 8, 3, 1);
    check_direct_png(PNG_COLOR_TYPE_GRAY, 16, 1, 1);
}

Test(image_io, reads_palette_png_keeping_indices)
{
    for (int depth = 1; depth <= 8; depth *= 2) {
        for (int with_trans = 0; with_trans <= 1; with_trans++) {
            int n_pal = 1 << depth;
            const char *p = path_of("pal.png");
            write_png(p, 11, 5, PNG_COLOR_TYPE_PALETTE, depth, 0, n_pal, with_trans ? n_pal / 2 : 0,
                      0);
            gcut_image *im = load_ok(p);
            int c = with_trans ? 4 : 3;
            cr_assert_eq(gcut_image_channels(im), c);
            const uint8_t *idx = gcut_image_indices(im), *px = gcut_image_pixels(im);
            cr_assert_not_null(idx);
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 11; x++) {
                    int k = pattern(x, y, 0) % n_pal;
                    if (depth < 8)
                        k &= (1 << depth) - 1;
                    cr_assert_eq(idx[y * 11 + x], k, "depth %d at (%d,%d)", depth, x, y);
                    const uint8_t *q = px + (y * 11 + x) * c;
                    cr_assert_eq(q[0], (uint8_t)(k * 3));
                    cr_assert_eq(q[1], (uint8_t)(255 - k));
                    cr_assert_eq(q[2], (uint8_t)(k * 7));
                    if (with_trans)
                        cr_assert_eq(q[3], k < n_pal / 2 ? 255 - 2 * k : 255);
                }
            gcut_image_destroy(im);
        }
    }
}

Test(image_io, grey_png_with_transparency_gets_alpha)
{
    const char *p = path_of("greytrns.png");
    write_png(p, 9, 4, PNG_COLOR_TYPE_GRAY, 8, 0, 0, 0, 1);
    gcut_image *im = load_ok(p);
    cr_assert_eq(gcut_image_channels(im), 2);
    const uint8_t *px = gcut_image_pixels(im);
    for (int i = 0; i < 36; i++)
        cr_assert_eq(px[2 * i + 1], px[2 * i] == 0 ? 0 : 255);
    gcut_image_destroy(im);
}

/* Write a JPEG of the pattern with libjpeg. */
static void write_jpeg(const char *path, int w, int h, int channels)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    jpeg_stdio_dest(&c, fp);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = channels;
    c.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 100, TRUE);
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc((size_t)w * (size_t)channels);
    while (c.next_scanline < c.image_height) {
        int y = (int)c.next_scanline;
        /* Smooth, so that quality 100 keeps every sample within a few levels. */
        for (int x = 0; x < w; x++)
            for (int s = 0; s < channels; s++)
                row[x * channels + s] = (unsigned char)(40 + x * 2 + y + s * 30);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    cr_assert_eq(fclose(fp), 0);
}

Test(image_io, reads_rgb_and_grey_jpeg)
{
    for (int channels = 1; channels <= 3; channels += 2) {
        const char *p = path_of("pic.jpg");
        write_jpeg(p, 40, 24, channels);
        gcut_image *im = load_ok(p);
        cr_assert_eq(gcut_image_width(im), 40);
        cr_assert_eq(gcut_image_height(im), 24);
        cr_assert_eq(gcut_image_channels(im), channels);
        const uint8_t *px = gcut_image_pixels(im);
        for (int y = 0; y < 24; y++)
            for (int x = 0; x < 40; x++)
                for (int s = 0; s < channels; s++) {
                    int want = 40 + x * 2 + y + s * 30;
                    int got = px[(y * 40 + x) * channels + s];
                    cr_assert(abs(got - want) <= 4, "(%d,%d,%d): %d vs %d", x, y, s, got, want);
                }
        gcut_image_destroy(im);
    }
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(data, 1, n, fp), n);
    cr_assert_eq(fclose(fp), 0);
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    rewind(fp);
    unsigned char *buf = malloc(*n);
    cr_assert_eq(fread(buf, 1, *n, fp), *n);
    fclose(fp);
    return buf;
}

Test(image_io, reads_pnm_8_and_16_bit_with_comments)
{
    const char *p = path_of("g.pgm");
    const char hdr[] = "P5\n# a comment\n3 2\n# another\n255\n";
    unsigned char data[sizeof hdr - 1 + 6];
    memcpy(data, hdr, sizeof hdr - 1);
    for (int i = 0; i < 6; i++)
        data[sizeof hdr - 1 + i] = (unsigned char)(i * 40);
    write_bytes(p, data, sizeof data);
    gcut_image *im = load_ok(p);
    cr_assert_eq(gcut_image_channels(im), 1);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(gcut_image_pixels(im)[i], i * 40);
    gcut_image_destroy(im);

    /* 16-bit P6 with maxval 1000: samples rescale to 8 bits with rounding. */
    p = path_of("c.ppm");
    const char hdr16[] = "P6 2 1 1000\n";
    unsigned char d16[sizeof hdr16 - 1 + 12];
    memcpy(d16, hdr16, sizeof hdr16 - 1);
    int vals[6] = {0, 1000, 500, 2, 998, 250};
    for (int i = 0; i < 6; i++) {
        d16[sizeof hdr16 - 1 + 2 * i] = (unsigned char)(vals[i] >> 8);
        d16[sizeof hdr16 - 1 + 2 * i + 1] = (unsigned char)(vals[i] & 255);
    }
    write_bytes(p, d16, sizeof d16);
    im = load_ok(p);
    cr_assert_eq(gcut_image_channels(im), 3);
    cr_assert_eq(gcut_image_bit_depth(im), 16);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(gcut_image_pixels(im)[i], (vals[i] * 255 + 500) / 1000);
    gcut_image_destroy(im);
}

/* The load fails with `want` and a message naming the file. */
static void expect_fail(const char *path, gcut_status want)
{
    gcut_image *im = (gcut_image *)1;
    gcut_status st = gcut_image_load(ctx, path, &im);
    cr_assert_eq(st, want, "%s: got %d (%s), want %d", path, st, gcut_last_error(ctx), want);
    cr_assert_null(im);
    cr_assert(strstr(gcut_last_error(ctx), path) != NULL, "message '%s' lacks %s",
              gcut_last_error(ctx), path);
}

/* Copy `src` to `name` keeping the first `keep` bytes, optionally with the
 * byte at `flip` inverted. */
static const char *damaged_copy(const char *src, const char *name, size_t keep, long flip)
{
    size_t n;
    unsigned char *buf = read_all(src, &n);
    if (keep > n)
        keep = n;
    if (flip >= 0)
        buf[flip] ^= 0xff;
    const char *p = path_of(name);
    write_bytes(p, buf, keep);
    free(buf);
    return p;
}

Test(image_io, corrupt_and_truncated_png_fail_naming_the_file)
{
    const char *good = path_of("good.png");
    write_png(good, 64, 64, PNG_COLOR_TYPE_RGB, 8, 0, 0, 0, 0);
    size_t n;
    free(read_all(good, &n));
    expect_fail(damaged_copy(good, "trunc.png", n / 2, -1), GCUT_E_FORMAT);
    expect_fail(damaged_copy(good, "header.png", 20, -1), GCUT_E_FORMAT);
    /* A flipped byte inside the image data breaks its CRC. */
    expect_fail(damaged_copy(good, "crc.png", n, (long)n / 2), GCUT_E_FORMAT);
}

Test(image_io, corrupt_and_truncated_jpeg_fail_naming_the_file)
{
    const char *good = path_of("good.jpg");
    write_jpeg(good, 64, 64, 3);
    size_t n;
    free(read_all(good, &n));
    expect_fail(damaged_copy(good, "trunc.jpg", n / 2, -1), GCUT_E_FORMAT);
    expect_fail(damaged_copy(good, "tiny.jpg", 40, -1), GCUT_E_FORMAT);
    /* Wreck a header marker after SOI (byte 3 is the first segment's code). */
    expect_fail(damaged_copy(good, "marker.jpg", n, 3), GCUT_E_FORMAT);
}

Test(image_io, bad_pnm_fails_naming_the_file)
{
    const char *p = path_of("t.pgm");
    write_bytes(p, "P5 4 4 255\n\x01\x02\x03", 14);
    expect_fail(p, GCUT_E_FORMAT);
    p = path_of("maxval.pgm");
    write_bytes(p, "P5 1 1 70000\n\x01\x02", 15);
    expect_fail(p, GCUT_E_FORMAT);
    p = path_of("over.pgm");
    write_bytes(p, "P5 1 1 100\n\x65", 12);
    expect_fail(p, GCUT_E_FORMAT);
    p = path_of("size.ppm");
    write_bytes(p, "P6 x 1 255\n", 11);
    expect_fail(p, GCUT_E_FORMAT);
}

Test(image_io, other_files_fail_naming_the_file)
{
    expect_fail(path_of("missing.png"), GCUT_E_IO);
    const char *p = path_of("empty.png");
    write_bytes(p, "", 0);
    expect_fail(p, GCUT_E_FORMAT);
    p = path_of("text.png");
    write_bytes(p, "hello, world\n", 13);
    expect_fail(p, GCUT_E_FORMAT);
}

Test(image_io, oversized_images_are_refused_before_allocating)
{
    /* Headers only: the size check must come before any pixel is read. */
    const char *p = path_of("huge.pgm");
    write_bytes(p, "P5 100000 100000 255\n", 21);
    expect_fail(p, GCUT_E_RANGE);

    p = path_of("huge.png");
    FILE *fp = fopen(p, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert_eq(setjmp(png_jmpbuf(png)), 0);
    png_init_io(png, fp);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_IHDR(png, info, 200000, 200000, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_destroy_write_struct(&png, &info);
    /* The start of an IDAT chunk, where libpng's header reading stops. */
    cr_assert_eq(fwrite("\0\0\0\0IDAT", 1, 8, fp), 8);
    fclose(fp);
    expect_fail(p, GCUT_E_RANGE);
}

Test(image_io, saves_png_and_pnm_that_load_back)
{
    uint8_t px[5 * 3 * 4]; /* 5x3 RGBA with a stride of 20 bytes */
    for (int i = 0; i < 60; i++)
        px[i] = (uint8_t)(i * 4);
    const char *names[] = {"rt.png", "rt.ppm"};
    for (int k = 0; k < 2; k++) {
        const char *p = path_of(names[k]);
        cr_assert_eq(gcut_image_save(ctx, p, px, 4, 3, 4, 20), GCUT_OK, "%s",
                     gcut_last_error(ctx));
        gcut_image *im = load_ok(p);
        int c = gcut_image_channels(im);
        cr_assert_eq(c, k == 0 ? 4 : 3);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++)
                for (int s = 0; s < c; s++)
                    cr_assert_eq(gcut_image_pixels(im)[(y * 4 + x) * c + s], px[y * 20 + x * 4 + s]);
        gcut_image_destroy(im);
    }
    const char *p = path_of("mask.png");
    uint8_t grey[6] = {0, 255, 0, 255, 255, 0};
    cr_assert_eq(gcut_image_save_png(ctx, p, grey, 3, 2, 1, 3), GCUT_OK);
    gcut_image *im = load_ok(p);
    cr_assert_eq(gcut_image_channels(im), 1);
    cr_assert_eq(memcmp(gcut_image_pixels(im), grey, 6), 0);
    gcut_image_destroy(im);
}

/* Grey PNGs (masks) are written with the "up" filter alone and a fast zlib
 * level: lossless all the same, whatever the rows hold. */
Test(image_io, grey_and_grey_alpha_png_round_trip_exactly)
{
    const int w = 37, h = 23;
    for (int c = 1; c <= 2; c++) {
        size_t stride = (size_t)w * c + 5;
        uint8_t *px = malloc(stride * h);
        uint32_t r = 7;
        for (size_t i = 0; i < stride * h; i++) {
            r = r * 1103515245u + 12345u;
            /* mask-like runs with some noise */
            px[i] = (uint8_t)((i / 11) % 3 == 0 ? 255 : (r >> 24) < 40 ? (r >> 16) : 0);
        }
        const char *p = path_of(c == 1 ? "g.png" : "ga.png");
        cr_assert_eq(gcut_image_save_png(ctx, p, px, w, h, c, stride), GCUT_OK, "%s",
                     gcut_last_error(ctx));
        gcut_image *im = load_ok(p);
        cr_assert_eq(gcut_image_channels(im), c);
        for (int y = 0; y < h; y++)
            cr_assert_eq(memcmp(gcut_image_pixels(im) + (size_t)y * w * c, px + y * stride,
                                (size_t)w * c),
                         0, "row %d of a %d-channel PNG", y, c);
        gcut_image_destroy(im);
        free(px);
    }
}

/* The PNG writer compresses strips of rows on threads: every channel count,
 * rows shorter and longer than a strip, images of one row or one column,
 * flat and noisy pixels, padded strides: the pixels libpng reads back are
 * the ones written, and the file's bytes do not depend on the threads. */
Test(image_io, png_strips_round_trip_and_do_not_depend_on_threads)
{
    static const int sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {7, 5}, {1000, 700},
                                   {50000, 3}, {129, 1017}};
    uint32_t r = 99;
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++)
        for (int c = 1; c <= 4; c++)
            for (int noisy = 0; noisy < 2; noisy++) {
                const int w = sizes[k][0], h = sizes[k][1];
                size_t stride = (size_t)w * c + (size_t)(k % 3);
                uint8_t *px = malloc(stride * h);
                cr_assert_not_null(px);
                for (size_t i = 0; i < stride * h; i++) {
                    r = r * 1103515245u + 12345u;
                    px[i] = noisy ? (uint8_t)(r >> 24) : (uint8_t)((i / 97) % 2 ? 255 : i % 7);
                }
                const char *names[3] = {"t0.png", "t1.png", "t5.png"};
                long size[3];
                for (int t = 0; t < 3; t++) {
                    gcut_options o;
                    gcut_options_init(&o);
                    o.threads = t == 0 ? 0 : t == 1 ? 1 : 5;
                    gcut_context *tc = NULL;
                    cr_assert_eq(gcut_context_create(&o, &tc), GCUT_OK);
                    const char *p = path_of(names[t]);
                    cr_assert_eq(gcut_image_save(tc, p, px, w, h, c, stride), GCUT_OK, "%s",
                                 gcut_last_error(tc));
                    gcut_context_destroy(tc);
                    struct stat sb;
                    cr_assert_eq(stat(p, &sb), 0);
                    size[t] = (long)sb.st_size;
                }
                gcut_image *im = load_ok(path_of("t1.png"));
                cr_assert_eq(gcut_image_width(im), w);
                cr_assert_eq(gcut_image_height(im), h);
                cr_assert_eq(gcut_image_channels(im), c);
                for (int y = 0; y < h; y++)
                    cr_assert_eq(memcmp(gcut_image_pixels(im) + (size_t)y * w * c,
                                        px + (size_t)y * stride, (size_t)w * c),
                                 0, "%dx%d, %d channels: row %d", w, h, c, y);
                gcut_image_destroy(im);
                FILE *f[3];
                for (int t = 0; t < 3; t++)
                    cr_assert_not_null(f[t] = fopen(path_of(names[t]), "rb"));
                cr_assert(size[0] == size[1] && size[1] == size[2]);
                for (long i = 0; i < size[0]; i++) {
                    int b = fgetc(f[0]);
                    cr_assert(b == fgetc(f[1]) && b == fgetc(f[2]), "%dx%d c %d: byte %ld", w,
                              h, c, i);
                }
                for (int t = 0; t < 3; t++)
                    fclose(f[t]);
                free(px);
            }
}

Test(image_io, saves_jpeg_and_bmp_when_stb_is_built)
{
    uint8_t px[8 * 8 * 3];
    for (int i = 0; i < (int)sizeof px; i++)
        px[i] = 128;
    const char *p = path_of("o.jpg");
    gcut_status st = gcut_image_save(ctx, p, px, 8, 8, 3, 24);
    if (!gcut_image_stb_built()) {
        cr_assert_eq(st, GCUT_E_UNSUPPORTED);
        cr_assert_eq(access(p, F_OK), -1);
        return;
    }
    cr_assert_eq(st, GCUT_OK, "%s", gcut_last_error(ctx));
    gcut_image *im = load_ok(p);
    cr_assert_eq(gcut_image_width(im), 8);
    cr_assert(abs(gcut_image_pixels(im)[0] - 128) <= 2);
    gcut_image_destroy(im);
    p = path_of("o.bmp");
    cr_assert_eq(gcut_image_save(ctx, p, px, 8, 8, 3, 24), GCUT_OK);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_gt(sb.st_size, 8 * 8 * 3);
}

Test(image_io, save_errors_leave_no_file)
{
    uint8_t px[4] = {0};
    cr_assert_eq(gcut_image_save(ctx, path_of("x.tiff"), px, 2, 2, 1, 2), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "tiff") != NULL);
    cr_assert_eq(gcut_image_save(ctx, path_of("x.png"), px, 2, 2, 1, 1), GCUT_E_INVALID);
    const char *p = path_of("no/such/dir/x.png");
    cr_assert_eq(gcut_image_save_png(ctx, p, px, 2, 2, 1, 2), GCUT_E_IO);
    cr_assert(strstr(gcut_last_error(ctx), p) != NULL);
    cr_assert_eq(access(path_of("x.tiff"), F_OK), -1);
    cr_assert_eq(access(path_of("x.png"), F_OK), -1);
}
