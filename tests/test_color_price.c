/* The colour pricing written once for host and device (vision/color_price.h)
 * and the paired fit of both colour models: the gcut-check checks as tests
 * (the device's part skipped without a usable GPU). */
#include <criterion/criterion.h>
#include <string.h>

#include "check_color_price.h"
#include "gpu_test.h"

static void run_check(void (*check)(check_report *, int, uint64_t), int count, uint64_t seed)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check(&r, count, seed);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, count);
}

Test(color_price, host_prices_follow_the_formula_and_the_definitions)
{
    run_check(check_color_price_host, 60, 11);
}

Test(color_price, device_prices_equal_the_host_bit_for_bit)
{
    run_gpu_check(check_color_price_gpu_vs_cpu, 60, 12);
}

Test(color_price, paired_fit_equals_two_fits)
{
    run_check(check_color_fit_pair, 30, 13);
}
