/* Shared by the fuzz harnesses (fuzz_*.c): one libFuzzer entry point per
 * parser, built two ways (fuzz/CMakeLists.txt):
 *  - with clang's libFuzzer (-DGCUT_FUZZ=ON) as fuzz-<target>, which
 *    scripts/fuzz.sh runs for a bounded time from fuzz/corpus/<target>/;
 *  - always, with replay_main.c as fuzz-replay-<target>, which CTest runs
 *    over the committed corpus and fuzz/regressions/<target>/ (inputs that
 *    once crashed), so every build replays them as a regular test.
 * A new parser joins with a fuzz_<target>.c, one line in the CMake list and
 * a few seed files. */
#ifndef GCUT_FUZZ_COMMON_H
#define GCUT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gcut.h"

/* The entry point every harness defines (libFuzzer's name). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A quiet CPU context with a small memory budget (FUZZ_MAX_MEMORY), made
 * once: a header that declares a huge size must be refused by the budget,
 * not allocated (the fuzzer's own RSS limit would report it as a bug). */
#define FUZZ_MAX_MEMORY ((int64_t)64 << 20)
gcut_context *fuzz_context(void);

/* The bytes as a file (a per-process temporary, rewritten each call); its
 * path, or NULL when it cannot be written. */
const char *fuzz_temp_file(const uint8_t *data, size_t size);

/* The bytes as a read-only stream (fmemopen; an empty input gives an
 * empty temporary file); NULL on failure. Close with fclose(). */
FILE *fuzz_memory_stream(const uint8_t *data, size_t size);

#endif
