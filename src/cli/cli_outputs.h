/* The output files of one command, kept together so that
 *  - an output that names an input or another output is refused before
 *    any work (exit 2): by inode when the file exists, else by the real
 *    path of its folder plus its name;
 *  - an output whose folder is missing or not writable, or that names a
 *    folder, fails (exit 1) before any work;
 *  - every output is written to a temporary beside it (the same extension,
 *    which picks the image format) and all are renamed into place at the
 *    end: a command writes all of its outputs or none.
 * Use: cli_outputs_input() for each input, cli_outputs_add() for each
 * output (a NULL path is skipped), cli_outputs_check(); write to
 * cli_outputs_temp(path); then cli_outputs_commit() or cli_outputs_abort(). */
#ifndef GCUT_CLI_CLI_OUTPUTS_H
#define GCUT_CLI_CLI_OUTPUTS_H

/* Enough for segment --seeds-sequence: the image, a trimap and
 * CLI_SEQUENCE_MAX scribble files in, one mask a state out. */
#define CLI_SEQUENCE_MAX 64
#define CLI_OUTPUTS_MAX (CLI_SEQUENCE_MAX + 2)

typedef struct cli_outputs {
    const char *cmd;
    int n_in, n_out;
    const char *in_what[CLI_OUTPUTS_MAX], *in_path[CLI_OUTPUTS_MAX];
    const char *out_what[CLI_OUTPUTS_MAX], *out_path[CLI_OUTPUTS_MAX];
    char *temp[CLI_OUTPUTS_MAX]; /* the temporary of each output, once asked for */
} cli_outputs;

void cli_outputs_init(cli_outputs *o, const char *cmd);

/* `what` names the file in messages: "the image", "--seeds". */
void cli_outputs_input(cli_outputs *o, const char *what, const char *path);
void cli_outputs_add(cli_outputs *o, const char *what, const char *path);

/* -1 to go on; else the exit status, the message printed. */
int cli_outputs_check(cli_outputs *o);

/* Where to write the output `path` (one added): its temporary. NULL for
 * NULL, or when out of memory. */
const char *cli_outputs_temp(cli_outputs *o, const char *path);

/* Rename every temporary written into place. 0, or 1 with the message
 * printed (the temporaries not yet renamed are removed). */
int cli_outputs_commit(cli_outputs *o);

/* Remove every temporary (after a failure) and forget them. */
void cli_outputs_abort(cli_outputs *o);

#endif
