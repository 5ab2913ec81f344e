/* The context, status strings and version. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gcut.h"

Test(context, creates_with_defaults_and_destroys)
{
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    cr_assert_not_null(ctx);
    cr_assert_eq(gcut_context_options(ctx)->device, GCUT_DEVICE_AUTO);
    cr_assert_str_eq(gcut_last_error(ctx), "");
    gcut_context_destroy(ctx);
    gcut_context_destroy(NULL);
}

Test(context, refuses_bad_options)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.gpu_index = -1;
    gcut_context *ctx = (gcut_context *)1;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_E_INVALID);
    cr_assert_null(ctx);
    cr_assert_eq(gcut_context_create(NULL, NULL), GCUT_E_INVALID);
}

Test(context, every_status_has_a_name)
{
    for (int s = GCUT_OK; s <= GCUT_E_INTERRUPTED; s++)
        cr_assert_str_neq(gcut_status_str((gcut_status)s), "unknown status", "status %d", s);
    cr_assert_str_eq(gcut_status_str((gcut_status)999), "unknown status");
}

Test(context, version_matches_macros)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", GCUT_VERSION_MAJOR, GCUT_VERSION_MINOR,
             GCUT_VERSION_PATCH);
    cr_assert_str_eq(gcut_version(), want);
}

Test(context, device_count_never_fails_without_a_gpu)
{
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    int count = -1;
    cr_assert_eq(gcut_device_count(ctx, &count), GCUT_OK);
    cr_assert_geq(count, 0);
    if (count == 0) {
        char name[64];
        cr_assert_eq(gcut_device_name(ctx, 0, name, sizeof name), GCUT_E_NODEVICE);
        cr_assert_str_neq(gcut_last_error(ctx), "");
    }
    gcut_context_destroy(ctx);
}
