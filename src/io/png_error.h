/* libpng's error and warning handlers, shared by the PNG reader and
 * writers: a fatal error keeps libpng's message for ours and jumps back to
 * the caller's setjmp; warnings (e.g. a bad ancillary chunk) are ignored. */
#ifndef GCUT_IO_PNG_ERROR_H
#define GCUT_IO_PNG_ERROR_H

#include <png.h>

typedef struct gcut__png_error {
    char message[256];
} gcut__png_error;

/* For png_create_*_struct(..., &error, gcut__png_on_error, gcut__png_on_warning). */
void gcut__png_on_error(png_structp png, png_const_charp msg);
void gcut__png_on_warning(png_structp png, png_const_charp msg);

#endif
