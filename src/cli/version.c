/* gcut --version */
#include <stdio.h>

#include "cli.h"

int cli_print_version(void)
{
    printf("gcut %s\n", gcut_version());
    printf("CUDA: %s\n", gcut_cuda_built() ? "built in" : "not built in");
    gcut_context *ctx = NULL;
    int count = 0;
    if (gcut_context_create(NULL, &ctx) == GCUT_OK)
        gcut_device_count(ctx, &count);
    if (count == 0)
        printf("GPUs: none found\n");
    for (int i = 0; i < count; i++) {
        char name[256];
        if (gcut_device_name(ctx, i, name, sizeof name) == GCUT_OK)
            printf("GPU %d: %s\n", i, name);
    }
    gcut_context_destroy(ctx);
    return CLI_EXIT_OK;
}
