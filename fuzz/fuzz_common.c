/* The harnesses' shared helpers (fuzz_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"

#include <stdlib.h>
#include <unistd.h>

gcut_context *fuzz_context(void)
{
    static gcut_context *ctx;
    if (!ctx) {
        gcut_options o;
        gcut_options_init(&o);
        o.device = GCUT_DEVICE_CPU;
        o.threads = 1;
        o.max_memory = FUZZ_MAX_MEMORY;
        if (gcut_context_create(&o, &ctx) != GCUT_OK)
            abort();
    }
    return ctx;
}

static char temp_path[64];

static void remove_temp(void)
{
    if (temp_path[0])
        unlink(temp_path);
}

const char *fuzz_temp_file(const uint8_t *data, size_t size)
{
    if (!temp_path[0]) {
        /* Memory-backed /dev/shm where there is one: on a disk the file's
         * rewrite costs more than most parses (300 runs/s against 9,000). */
        const char *dir = getenv("TMPDIR");
        if (!dir)
            dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(temp_path, sizeof temp_path, "%.40s/gcut-fuzz-%ld", dir, (long)getpid());
        atexit(remove_temp);
    }
    FILE *fp = fopen(temp_path, "wb");
    if (!fp)
        return NULL;
    int ok = fwrite(data, 1, size, fp) == size;
    ok &= fclose(fp) == 0;
    return ok ? temp_path : NULL;
}

FILE *fuzz_memory_stream(const uint8_t *data, size_t size)
{
    if (size == 0)
        return tmpfile();
    return fmemopen((void *)data, size, "rb");
}
