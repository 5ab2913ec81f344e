/* Shared pieces of the gcut command (STYLE.md's CLI conventions). */
#ifndef GCUT_CLI_CLI_H
#define GCUT_CLI_CLI_H

#include "gcut.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_RUNTIME = 1, CLI_EXIT_USAGE = 2 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
} cli_command;

/* Subcommands: argv[0] is the subcommand's name. */
int cli_grid_main(int argc, char **argv);

/* `gcut --version`: the version, whether CUDA is built in, the GPUs found. */
int cli_print_version(void);

#endif
