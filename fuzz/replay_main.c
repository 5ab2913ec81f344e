/* A main() for the fuzz harnesses without libFuzzer: runs the entry point
 * once on each file named, or on every file of each folder named, so that
 * the seed corpus and the inputs that once crashed are replayed by CTest in
 * every build (under ASan and UBSan in the sanitizer build). Prints the
 * count; a crash or a sanitizer report fails the test. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fuzz-replay: cannot open %s\n", path);
        return -1;
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *bigger = realloc(data, cap);
            if (!bigger) {
                free(data);
                fclose(fp);
                return -1;
            }
            data = bigger;
        }
        size_t got = fread(data + size, 1, cap - size, fp);
        size += got;
        if (got == 0)
            break;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of `dir`, in name order (the same run every time). */
static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* a target without regressions has no folder */
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger) {
                bad = 1;
                break;
            }
            names = bigger;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            bad = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            bad |= replay_file(names[i]) != 0;
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            bad |= replay_dir(argv[i], &count) != 0;
        else if (stat(argv[i], &st) == 0) {
            bad |= replay_file(argv[i]) != 0;
            count++;
        }
    }
    printf("fuzz-replay: %d inputs replayed\n", count);
    return bad ? 1 : 0;
}
