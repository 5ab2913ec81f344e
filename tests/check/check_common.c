#include "check_common.h"

#include <stdarg.h>
#include <stdio.h>

void check_fail(check_report *r, const char *fmt, ...)
{
    r->failed++;
    if (r->failed > 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->first_failure, sizeof r->first_failure, fmt, ap);
    va_end(ap);
}
