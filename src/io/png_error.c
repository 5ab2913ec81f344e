#include <stdio.h>

#include "io/png_error.h"

/* It must not return: libpng's state is undefined after a fatal error. */
void gcut__png_on_error(png_structp png, png_const_charp msg)
{
    gcut__png_error *e = png_get_error_ptr(png);
    snprintf(e->message, sizeof e->message, "%s", msg);
    png_longjmp(png, 1);
}

void gcut__png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}
