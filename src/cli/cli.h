/* Shared pieces of the gcut command: the CLI conventions (ARCHITECTURE.md). */
#ifndef GCUT_CLI_CLI_H
#define GCUT_CLI_CLI_H

#include <stdio.h>

#include "gcut.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_RUNTIME = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_INTERRUPTED = 130 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
} cli_command;

/* Subcommands: argv[0] is the subcommand's name. */
int cli_grid_main(int argc, char **argv);
int cli_segment_main(int argc, char **argv);
int cli_maxflow_main(int argc, char **argv);
int cli_gen_main(int argc, char **argv);
int cli_match_main(int argc, char **argv);
int cli_assign_main(int argc, char **argv);
int cli_flow_main(int argc, char **argv);

/* A context whose log messages go to stderr as "gcut: CMD: message", and
 * whose solves stop at Ctrl-C (GCUT_E_INTERRUPTED);
 * threads: the CPU threads of parallel solvers (0: one per online CPU). */
int cli_context_create(const char *cmd, gcut_device device, int verbosity, int threads,
                       gcut_context **ctx);

/* --device auto|cpu|gpu; a usage error (exit 2) otherwise. */
int cli_parse_device(const char *cmd, const char *arg, gcut_device *out);

/* "gcut: CMD: message" and "Try 'gcut CMD --help'." on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* What every subcommand's option loop does with getopt_long's other
 * answers (`optstring` as given to it, starting with ':', and opterr 0, so
 * getopt says nothing itself): 'h' prints the usage on stdout and returns 0, 'V' the
 * version; a missing value or an unknown option is a usage error naming
 * the option. */
int cli_common_option(const char *cmd, int c, char **argv, const char *optstring,
                      void (*usage)(FILE *out));

/* "gcut: CMD: <the context's last error>" on stderr; returns 1 (130 when
 * the run was interrupted by Ctrl-C). */
int cli_runtime_error(const char *cmd, const gcut_context *ctx, gcut_status status);

/* The same with a message of the command's own. */
int cli_error(const char *cmd, gcut_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The one input file left after the options: -1 to go on with *path set,
 * else a usage error's exit status (none, or more than one). */
int cli_single_input(const char *cmd, int argc, char **argv, const char **path);

/* A JSON string literal, escaped. */
void cli_json_string(FILE *out, const char *s);

/* `gcut --version`: the version, whether CUDA is built in, the GPUs found. */
int cli_print_version(void);

/* --max-memory SIZE (every subcommand): bytes, or a number with K, M, G or
 * T (powers of 1024, "GB" and "GiB" alike); the contexts made after it get
 * it as their memory budget (gcut_options.max_memory). 0, or a usage error
 * (exit 2). */
int cli_parse_max_memory(const char *cmd, const char *arg);

/* -v/--verify, -j/--json, -q/--quiet and -X/--max-memory, shared by the
 * solver commands. */
typedef struct cli_run_flags {
    int verify, json, verbosity; /* verbosity 1 unless --quiet */
} cli_run_flags;

/* One of those options (optarg as getopt left it): -1 when applied, else
 * the exit status to return (a bad --max-memory, or what
 * cli_common_option answers for any other option). */
int cli_run_flag_option(const char *cmd, int c, char **argv, const char *optstring,
                        void (*usage)(FILE *out), cli_run_flags *flags);

/* segment and grid on the GPU: fork before anything starts CUDA, so that
 * the command returns once its outputs are written while the driver's
 * release of the context (about 100 ms) finishes in the child
 * (cli_detach.c). No-op without CUDA or its driver, with --device cpu or
 * GCUT_DETACH=0. */
void cli_detach_start(gcut_device device);

/* After a successful run whose outputs are committed and whose report is
 * printed: hand the exit status to the waiting parent. */
void cli_detach_done(void);

#endif
