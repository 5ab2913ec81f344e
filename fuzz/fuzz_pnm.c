/* Fuzz target "pnm": the PNM reader on the bytes as a stream. */
#include "fuzz_common.h"
#include "io/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fuzz_memory_stream(data, size);
    if (!fp)
        return 0;
    gcut_image *im = NULL;
    if (gcut__pnm_read(fuzz_context(), "fuzz.pnm", fp, &im) == GCUT_OK)
        gcut_image_destroy(im);
    fclose(fp);
    return 0;
}
