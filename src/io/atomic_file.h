/* Output files that appear whole or not at all: written to a temporary
 * beside the target, renamed into place on success, removed on failure. */
#ifndef GCUT_IO_ATOMIC_FILE_H
#define GCUT_IO_ATOMIC_FILE_H

#include <stdio.h>

#include "gcut.h"

typedef struct gcut__atomic_file {
    FILE *fp;
    char *tmp_path;
    char *path;
} gcut__atomic_file;

/* Open a temporary for `path` (same folder) for writing in binary mode. */
gcut_status gcut__atomic_open(gcut_context *ctx, const char *path, gcut__atomic_file *af);

/* Flush, close and rename into place; on any error the temporary is removed
 * and GCUT_E_IO returned naming `path`. */
gcut_status gcut__atomic_commit(gcut_context *ctx, gcut__atomic_file *af);

/* Close and remove the temporary (after a failure). Safe to call twice. */
void gcut__atomic_abort(gcut__atomic_file *af);

#endif
