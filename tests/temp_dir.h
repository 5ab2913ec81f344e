/* For the Criterion files that write files: a fresh folder under /tmp per
 * test, and removing it with all it holds afterwards. */
#ifndef GCUT_TESTS_TEMP_DIR_H
#define GCUT_TESTS_TEMP_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* dir (at least 64 bytes) = a new /tmp/gcut-TAG-XXXXXX. */
static inline void temp_dir_make(char *dir, size_t size, const char *tag)
{
    snprintf(dir, size, "/tmp/gcut-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(dir));
}

static inline void temp_dir_remove(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

#endif
