/* Segmentation with the energy built on the GPU: equal to the CPU path on
 * the sample and synthetic images (skipped without a usable GPU), and the
 * device choice, which runs everywhere: auto without a GPU segments on the
 * CPU with the CPU's result; gpu without one fails clearly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "check_segment_gpu.h"
#include "gcut.h"
#include "gpu_test.h"

Test(segment_gpu, gpu_energy_and_masks_equal_the_cpu_path)
{
    run_gpu_check(check_segment_gpu_vs_cpu, 27, 3);
}

/* A 40x30 RGB image: a bright square on a dark ground, a foreground
 * scribble inside the square and a background frame. */
static void square_image(uint8_t *rgb, uint8_t *seeds)
{
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 40; x++) {
            int in = x >= 12 && x < 28 && y >= 8 && y < 22;
            uint8_t *p = rgb + 3 * (y * 40 + x);
            p[0] = (uint8_t)(in ? 220 - x : 30 + y);
            p[1] = (uint8_t)(in ? 200 : 40);
            p[2] = (uint8_t)(in ? 60 + y : 50 + x);
            seeds[y * 40 + x] = x == 0 || y == 0 || x == 39 || y == 29 ? GCUT_SEED_BG
                                : x >= 18 && x < 22 && y >= 13 && y < 17 ? GCUT_SEED_FG
                                                                        : GCUT_SEED_NONE;
        }
}

static gcut_context *context_for(gcut_device device)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_OK);
    return ctx;
}

Test(segment_gpu, auto_without_a_gpu_segments_on_the_cpu_alike)
{
    if (have_gpu())
        cr_skip_test("a GPU is present");
    static uint8_t rgb[40 * 30 * 3], seeds[40 * 30], want[40 * 30], got[40 * 30];
    square_image(rgb, seeds);
    gcut_context *cpu = context_for(GCUT_DEVICE_CPU), *any = context_for(GCUT_DEVICE_AUTO);
    gcut_segment_info a, b;
    cr_assert_eq(gcut_segment_image(cpu, rgb, 40, 30, 3, 120, seeds, NULL, want, &a), GCUT_OK,
                 "%s", gcut_last_error(cpu));
    cr_assert_eq(gcut_segment_image(any, rgb, 40, 30, 3, 120, seeds, NULL, got, &b), GCUT_OK,
                 "%s", gcut_last_error(any));
    cr_assert_str_eq(b.device, "cpu");
    cr_assert_eq(a.flow, b.flow);
    cr_assert_eq(memcmp(want, got, sizeof want), 0);
    /* The square is the object: its centre in, the ground out. */
    cr_assert_eq(got[15 * 40 + 20], 1);
    cr_assert_eq(got[3 * 40 + 3], 0);
    gcut_context_destroy(cpu);
    gcut_context_destroy(any);
}

Test(segment_gpu, gpu_without_a_device_fails_clearly)
{
    if (have_gpu())
        cr_skip_test("a GPU is present");
    static uint8_t rgb[40 * 30 * 3], seeds[40 * 30], mask[40 * 30];
    square_image(rgb, seeds);
    gcut_context *ctx = context_for(GCUT_DEVICE_GPU);
    cr_assert_eq(gcut_segment_image(ctx, rgb, 40, 30, 3, 120, seeds, NULL, mask, NULL),
                 GCUT_E_NODEVICE);
    cr_assert(strstr(gcut_last_error(ctx), "GPU") != NULL, "%s", gcut_last_error(ctx));
    gcut_context_destroy(ctx);
}
