/* Outputs of one command (cli_outputs.h): aliasing refused, all or none. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli_outputs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_outputs_init(cli_outputs *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
}

void cli_outputs_input(cli_outputs *o, const char *what, const char *path)
{
    if (path && o->n_in < CLI_OUTPUTS_MAX) {
        o->in_what[o->n_in] = what;
        o->in_path[o->n_in++] = path;
    }
}

void cli_outputs_add(cli_outputs *o, const char *what, const char *path)
{
    if (path && o->n_out < CLI_OUTPUTS_MAX) {
        o->out_what[o->n_out] = what;
        o->out_path[o->n_out++] = path;
    }
}

/* The folder part of `path` ("." when none) into buf. */
static void folder_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else if (slash == path)
        snprintf(buf, size, "/");
    else
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

/* What identifies a file: its inode when it exists, and the real path of
 * its folder plus its name (for one not yet there). */
typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char where[PATH_MAX + NAME_MAX + 2];
} file_id;

static void identify(const char *path, file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    char folder[PATH_MAX], real[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (realpath(folder, real))
        snprintf(id->where, sizeof id->where, "%s/%s", real, name);
    else
        snprintf(id->where, sizeof id->where, "%s", path);
}

static int same_file(const file_id *a, const file_id *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return strcmp(a->where, b->where) == 0;
}

int cli_outputs_check(cli_outputs *o)
{
    file_id in[CLI_OUTPUTS_MAX], out[CLI_OUTPUTS_MAX];
    for (int i = 0; i < o->n_in; i++)
        identify(o->in_path[i], &in[i]);
    for (int k = 0; k < o->n_out; k++) {
        identify(o->out_path[k], &out[k]);
        for (int i = 0; i < o->n_in; i++)
            if (same_file(&out[k], &in[i]))
                return cli_usage_error(o->cmd, "%s '%s' would overwrite %s '%s'", o->out_what[k],
                                       o->out_path[k], o->in_what[i], o->in_path[i]);
        for (int j = 0; j < k; j++)
            if (same_file(&out[k], &out[j]))
                return cli_usage_error(o->cmd, "%s '%s' and %s '%s' are the same file",
                                       o->out_what[j], o->out_path[j], o->out_what[k],
                                       o->out_path[k]);
    }
    /* Where the writes would fail, fail now, before the work. */
    for (int k = 0; k < o->n_out; k++) {
        char folder[PATH_MAX];
        struct stat st;
        folder_of(o->out_path[k], folder, sizeof folder);
        int err = 0;
        if (stat(o->out_path[k], &st) == 0 && S_ISDIR(st.st_mode))
            err = EISDIR;
        else if (access(folder, W_OK | X_OK) != 0)
            err = errno;
        if (err)
            return cli_error(o->cmd, GCUT_E_IO, "cannot write %s: %s", o->out_path[k],
                             strerror(err));
    }
    return -1;
}

const char *cli_outputs_temp(cli_outputs *o, const char *path)
{
    for (int k = 0; k < o->n_out; k++) {
        if (!path || strcmp(o->out_path[k], path) != 0)
            continue;
        if (o->temp[k])
            return o->temp[k];
        /* NAME.tmp-PID-K.EXT beside NAME.EXT: the extension stays last. */
        const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
        const char *dot = strrchr(name, '.');
        size_t stem = dot && dot != name ? (size_t)(dot - path) : strlen(path);
        size_t size = strlen(path) + 48;
        if (!(o->temp[k] = malloc(size)))
            return NULL;
        snprintf(o->temp[k], size, "%.*s.tmp-%ld-%d%s", (int)stem, path, (long)getpid(), k,
                 path + stem);
        return o->temp[k];
    }
    return NULL;
}

int cli_outputs_commit(cli_outputs *o)
{
    for (int k = 0; k < o->n_out; k++) {
        if (!o->temp[k] || access(o->temp[k], F_OK) != 0)
            continue; /* not written: an output this run had nothing for */
        if (rename(o->temp[k], o->out_path[k]) != 0) {
            int err = errno;
            cli_outputs_abort(o);
            return cli_error(o->cmd, GCUT_E_IO, "cannot write %s: %s", o->out_path[k],
                             strerror(err));
        }
        free(o->temp[k]);
        o->temp[k] = NULL;
    }
    return 0;
}

void cli_outputs_abort(cli_outputs *o)
{
    for (int k = 0; k < o->n_out; k++) {
        if (o->temp[k])
            unlink(o->temp[k]);
        free(o->temp[k]);
        o->temp[k] = NULL;
    }
}
