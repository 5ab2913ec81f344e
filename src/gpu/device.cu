/* Device discovery for a CUDA build. Any runtime error while probing (no
 * driver, driver too old, no device) means "no device", never a crash. */
#include <cuda_runtime.h>
#include <string.h>

#include "core/context.h"
#include "gpu/gpu.h"

extern "C" int gcut_cuda_built(void) { return 1; }

extern "C" int gcut__gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky error */
        return 0;
    }
    return count;
}

extern "C" gcut_status gcut__gpu_name(gcut_context *ctx, int index, char *buf, size_t buf_size)
{
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, index);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gcut__fail(ctx, GCUT_E_DEVICE, "cudaGetDeviceProperties(%d): %s", index,
                          cudaGetErrorString(err));
    }
    strncpy(buf, prop.name, buf_size - 1);
    buf[buf_size - 1] = '\0';
    return GCUT_OK;
}

extern "C" void gcut__gpu_release(gcut_context *ctx) { (void)ctx; }
