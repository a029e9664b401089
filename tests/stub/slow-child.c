/*
 * LD_PRELOAD'ed into hmn by run.bats, and into nothing else: it widens the
 * moment between one of hmn's fork()s and the first thing its child does,
 * a few microseconds that no test could otherwise put a signal into.
 *
 * The $HMN_SLOW_CHILD-th child that hmn forks (1: the first, hmn run's
 * group sentinel; 2: the command, before it execs) writes its pid to
 * $HMN_SLOW_CHILD_DIR/child and then sleeps $HMN_SLOW_CHILD_MS (default
 * 2000) in its first sigemptyset(): the first library call each of those
 * children makes of its own. Whatever signal comes meanwhile finds the
 * child as hmn's fork() left it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pid_t (*real_fork)(void);
static int (*real_sigemptyset)(sigset_t *);
static int wanted;          /* which child to slow down; 0: none */
static long delay_ms = 2000;
static char pid_file[4096];
static int forks;           /* in the parent: the children forked so far */
static int child_number;    /* in a child: which one it is (0: not a child of ours) */
static int slowed;

__attribute__((constructor)) static void setup(void)
{
	real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
	real_sigemptyset = (int (*)(sigset_t *))dlsym(RTLD_NEXT, "sigemptyset");
	const char *n = getenv("HMN_SLOW_CHILD"), *ms = getenv("HMN_SLOW_CHILD_MS"), *dir = getenv("HMN_SLOW_CHILD_DIR");
	wanted = n ? atoi(n) : 0;
	if (ms)
		delay_ms = atol(ms);
	if (dir)
		snprintf(pid_file, sizeof(pid_file), "%s/child", dir);
	/* What hmn runs is not slowed down, nor are its own children counted. */
	unsetenv("LD_PRELOAD");
	unsetenv("HMN_SLOW_CHILD");
}

__attribute__((visibility("default"))) pid_t fork(void)
{
	int number = ++forks;
	pid_t pid = real_fork();
	if (pid == 0)
		child_number = number;
	return pid;
}

/* After fork(): only what a signal handler may call (open, write, nanosleep). */
static void announce_and_wait(void)
{
	char text[24];
	int len = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	int fd = pid_file[0] ? open(pid_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (fd >= 0) {
		(void)!write(fd, text, (size_t)len);
		close(fd);
	}
	struct timespec left = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

__attribute__((visibility("default"))) int sigemptyset(sigset_t *set)
{
	if (wanted && child_number == wanted && !slowed) {
		slowed = 1;
		announce_and_wait();
	}
	return real_sigemptyset(set);
}
