/* A GPU run's end taken off the user's wait.
 *
 * When a process that used CUDA ends, the driver releases its context as
 * the device files close: about 100 ms on an H200 holding a few hundred MB
 * (bench/results/grid_e2e_*.md), with or without CUDA's own teardown, and
 * before the shell gets the exit status. So `gcut segment` and `gcut grid`,
 * in a CUDA build and unless the CPU was asked for, fork before anything
 * starts CUDA. The child does the work. The parent waits on a pipe: once
 * the child has committed every output and closed its standard streams it
 * writes its exit status there, the parent exits with it, and the child's
 * own end (the release) goes on unwatched. On any other path (an error, a
 * crash, a signal) no status comes, and the parent waits for the child and
 * exits as it did, so failures keep their exact status.
 *
 * Signals: Ctrl-C reaches both processes (one process group), and the
 * parent ignores it (the child, with the usual handler, stops cleanly);
 * SIGTERM, SIGHUP and SIGQUIT sent to the parent go on to the child; and
 * until the handoff the child dies with the parent (Linux), so that a
 * killed command never leaves a worker behind.
 *
 * Only where an NVIDIA driver is loaded (/dev/nvidiactl): elsewhere no
 * context is ever made, and the finished child would only wait for a
 * reaper. GCUT_DETACH=0 keeps one process (for profilers and debuggers),
 * GCUT_DETACH=1 forks even without the driver (the tests). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli.h"

static int status_fd = -1; /* the child's end of the pipe, once detached */
static volatile pid_t worker;

static void forward(int sig)
{
    if (worker > 0)
        kill(worker, sig);
}

/* The parent: the child's status as soon as it is handed over, else its
 * exit. Never returns. */
static void wait_for_worker(int fd, pid_t child)
{
    worker = child;
    signal(SIGINT, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    unsigned char status;
    ssize_t got;
    do
        got = read(fd, &status, 1);
    while (got < 0 && errno == EINTR);
    if (got == 1)
        _exit(status);
    int ws = 0;
    while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(ws))
        _exit(WEXITSTATUS(ws));
    _exit(WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : CLI_EXIT_RUNTIME);
}

void cli_detach_start(gcut_device device)
{
    const char *env = getenv("GCUT_DETACH");
    int forced = env && !strcmp(env, "1");
    if (!gcut_cuda_built() || device == GCUT_DEVICE_CPU || (env && !strcmp(env, "0")) ||
        (!forced && access("/dev/nvidiactl", F_OK) != 0))
        return;
    int fds[2];
    if (pipe(fds) != 0)
        return; /* one process, as without CUDA */
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (child > 0) {
        close(fds[1]);
        wait_for_worker(fds[0], child);
    }
    close(fds[0]);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    status_fd = fds[1];
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent died before the line above */
        _exit(CLI_EXIT_RUNTIME);
#else
    (void)parent;
#endif
}

void cli_detach_done(void)
{
    if (status_fd < 0)
        return;
    if (fflush(stdout) != 0 || fflush(stderr) != 0 || ferror(stdout))
        return; /* not handed over: the parent waits for the normal exit */
    /* Whoever reads our output (a pipe) sees its end now, not at exit. */
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0 || dup2(null_fd, STDERR_FILENO) < 0) {
        if (null_fd >= 0)
            close(null_fd);
        return;
    }
    close(null_fd);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, 0);
#endif
    unsigned char status = CLI_EXIT_OK;
    ssize_t put;
    do
        put = write(status_fd, &status, 1);
    while (put < 0 && errno == EINTR);
    close(status_fd);
    status_fd = -1;
}
