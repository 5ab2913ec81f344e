/* Segmentation sessions: every state's mask equal to a one-shot
 * segmentation's, and the session's contracts. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "check_segment_session.h"
#include "gcut.h"

Test(segment_session, every_state_equals_a_one_shot_segmentation)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_segment_session_vs_image(&r, 60, 3);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 60);
}

Test(segment_session, bad_input_is_refused_with_a_message)
{
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    uint8_t pixels[4 * 3 * 3] = {0}, seeds[12] = {0}, mask[12];
    gcut_segment_session *s = NULL;
    cr_assert_eq(gcut_segment_session_create(ctx, NULL, 4, 3, 3, 12, NULL, &s), GCUT_E_INVALID);
    cr_assert_eq(gcut_segment_session_create(ctx, pixels, 0, 3, 3, 12, NULL, &s), GCUT_E_INVALID);
    cr_assert_eq(gcut_segment_session_create(ctx, pixels, 4, 3, 3, 11, NULL, &s), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "stride"));
    cr_assert_null(s);
    cr_assert_eq(gcut_segment_session_create(ctx, pixels, 4, 3, 3, 12, NULL, &s), GCUT_OK);
    cr_assert_eq(gcut_segment_session_update(s, seeds, mask, NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "no background seeds"), "%s", gcut_last_error(ctx));
    seeds[5] = 7;
    cr_assert_eq(gcut_segment_session_update(s, seeds, mask, NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "seed value 7 at pixel (1, 1)"), "%s",
              gcut_last_error(ctx));
    /* After refusals the session still works. */
    seeds[5] = GCUT_SEED_FG;
    seeds[0] = GCUT_SEED_BG;
    gcut_segment_info info;
    cr_assert_eq(gcut_segment_session_update(s, seeds, mask, &info), GCUT_OK,
                 "%s", gcut_last_error(ctx));
    cr_assert_eq(mask[5], 1);
    cr_assert_eq(mask[0], 0);
    gcut_segment_session_destroy(s);
    gcut_segment_session_destroy(NULL);
    gcut_context_destroy(ctx);
}
