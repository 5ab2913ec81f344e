/* Helpers shared by the subcommands: messages, exit codes, device options,
 * a context that logs to stderr, JSON strings. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The library names its module first ("grid: ..."); where that is the
 * subcommand's own name, say it once. */
static const char *without_prefix(const char *cmd, const char *msg)
{
    size_t n = strlen(cmd);
    if (strncmp(msg, cmd, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        return msg + n + 2;
    return msg;
}

static void log_to_stderr(void *user, int level, const char *message)
{
    (void)level;
    const char *cmd = user;
    fprintf(stderr, "gcut: %s: %s\n", cmd, without_prefix(cmd, message));
}

/* Ctrl-C asks the running solve to stop (through the progress callback,
 * which the solvers poll), so that the command ends with its message and
 * writes no output; a second Ctrl-C ends it at once. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
    signal(SIGINT, SIG_DFL);
}

static int stop_requested(void *user, const char *stage, double fraction)
{
    (void)user;
    (void)stage;
    (void)fraction;
    return interrupted;
}

static int64_t max_memory; /* --max-memory; 0: the library's default */

int cli_parse_max_memory(const char *cmd, const char *arg)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    double unit = 1;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        for (const char *k = units; k <= u; k++)
            unit *= 1024;
        end++;
        if ((end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b'))
            end += 2;
        else if (*end == 'B' || *end == 'b')
            end++;
    }
    if (end == arg || *end || errno || !(v > 0) || v * unit >= 9.2e18)
        return cli_usage_error(cmd, "--max-memory needs a size like 4G, 512M or 1000000 (bytes), "
                                    "not '%s'",
                               arg);
    max_memory = (int64_t)(v * unit);
    if (max_memory < 1)
        max_memory = 1;
    return 0;
}

int cli_context_create(const char *cmd, gcut_device device, int verbosity, int threads,
                       gcut_context **ctx)
{
    signal(SIGINT, on_sigint);
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    opt.verbosity = verbosity;
    opt.threads = threads;
    opt.max_memory = max_memory;
    opt.log = log_to_stderr;
    opt.log_user = (void *)cmd;
    opt.progress = stop_requested;
    if (gcut_context_create(&opt, ctx) != GCUT_OK) {
        fprintf(stderr, "gcut: %s: cannot create a context (out of memory?)\n", cmd);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

int cli_parse_device(const char *cmd, const char *arg, gcut_device *out)
{
    if (!strcmp(arg, "auto"))
        *out = GCUT_DEVICE_AUTO;
    else if (!strcmp(arg, "cpu"))
        *out = GCUT_DEVICE_CPU;
    else if (!strcmp(arg, "gpu"))
        *out = GCUT_DEVICE_GPU;
    else
        return cli_usage_error(cmd, "--device must be auto, cpu or gpu, not '%s'", arg);
    return CLI_EXIT_OK;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gcut: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'gcut %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_runtime_error(const char *cmd, const gcut_context *ctx, gcut_status status)
{
    const char *msg = ctx ? gcut_last_error(ctx) : "";
    return cli_error(cmd, status, "%s", *msg ? without_prefix(cmd, msg) : gcut_status_str(status));
}

int cli_error(const char *cmd, gcut_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gcut: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    /* Stopped by Ctrl-C (the progress callback's answer): the shell's code
     * for SIGINT, 128 + 2. */
    return status == GCUT_E_INTERRUPTED ? CLI_EXIT_INTERRUPTED : CLI_EXIT_RUNTIME;
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

int cli_common_option(const char *cmd, int c, char **argv, const char *optstring,
                      void (*usage)(FILE *out))
{
    switch (c) {
    case 'h':
        usage(stdout);
        return CLI_EXIT_OK;
    case 'V':
        return cli_print_version();
    case ':':
        return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    default:
        /* getopt_long answers '?' with optopt 0 for an unknown long option,
         * with an unknown letter for a short one, and with a known letter
         * for a long option given a value it does not take. */
        if (!optopt)
            return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        if (strchr(optstring, optopt) == NULL)
            return cli_usage_error(cmd, "unknown option '-%c'", optopt);
        const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
        return cli_usage_error(cmd, "option '%.*s' takes no value",
                               eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    }
}

int cli_single_input(const char *cmd, int argc, char **argv, const char **path)
{
    if (optind >= argc)
        return cli_usage_error(cmd, "no input file");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "one input file only, got '%s' too", argv[optind + 1]);
    *path = argv[optind];
    return -1;
}
