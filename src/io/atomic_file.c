/* Write-to-temporary-then-rename, so that no partial output file is ever
 * left behind (ARCHITECTURE.md, "Errors"). */
#include "io/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/context.h"

/* Create a fresh temporary file beside `path`. Not mkstemp(): that makes the
 * file 0600, and the output must get the usual 0666 less the umask, which
 * open() applies by itself. O_EXCL makes the name ours; a clash retries. */
static int open_temporary(const char *path, char *tmp_path, size_t size)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = atomic_fetch_add(&counter, 1u);
        snprintf(tmp_path, size, "%s.tmp-%ld-%u", path, (long)getpid(), k);
        int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

gcut_status gcut__atomic_open(gcut_context *ctx, const char *path, gcut__atomic_file *af)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path)
        return gcut__fail(ctx, GCUT_E_INVALID, "no output path given");
    size_t n = strlen(path);
    af->path = malloc(n + 1);
    af->tmp_path = malloc(n + 48);
    if (!af->path || !af->tmp_path) {
        gcut__atomic_abort(af);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory opening %s", path);
    }
    memcpy(af->path, path, n + 1);
    int fd = open_temporary(path, af->tmp_path, n + 48);
    if (fd < 0) {
        int err = errno;
        gcut__atomic_abort(af);
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", path, strerror(err));
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        unlink(af->tmp_path);
        gcut__atomic_abort(af);
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s", path);
    }
    return GCUT_OK;
}

gcut_status gcut__atomic_commit(gcut_context *ctx, gcut__atomic_file *af)
{
    int bad = ferror(af->fp) != 0;
    bad |= fflush(af->fp) != 0;
    bad |= fclose(af->fp) != 0;
    af->fp = NULL;
    if (!bad && rename(af->tmp_path, af->path) == 0) {
        free(af->tmp_path);
        free(af->path);
        af->tmp_path = af->path = NULL;
        return GCUT_OK;
    }
    int err = errno;
    gcut_status st = gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", af->path,
                                bad ? "write failed" : strerror(err));
    gcut__atomic_abort(af);
    return st;
}

void gcut__atomic_abort(gcut__atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp_path) {
        unlink(af->tmp_path);
        free(af->tmp_path);
        af->tmp_path = NULL;
    }
    free(af->path);
    af->path = NULL;
}
