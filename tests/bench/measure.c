/*
 * measure RUNS COMMAND [ARG...] [--- COMMAND2 [ARG...]]
 *
 * Runs COMMAND RUNS times (stdout and stderr to /dev/null) and prints the
 * median wall time, the median CPU time (user + system, from wait4's rusage:
 * what the machine spent, less sensitive than wall time to other load on it)
 * and the largest peak RSS. With a second command after
 * "---", the two run alternately, so that drift in the machine's speed
 * hits both alike, and the ratio of their medians is printed too.
 * fork/exec/wait4, so the figures are the child's alone.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct subject {
	char **argv;
	double *ms;
	double *cpu_ms;
	long peak_kib;
};

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int run_once(struct subject *s, int i)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execv(s->argv[0], s->argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "measure: %s failed (status %d)\n", s->argv[0], status);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->ms[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	s->cpu_ms[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	if (ru.ru_maxrss > s->peak_kib)
		s->peak_kib = ru.ru_maxrss;
	return 0;
}

static double report(struct subject *s, int runs, const char *label)
{
	qsort(s->ms, (size_t)runs, sizeof(*s->ms), compare);
	qsort(s->cpu_ms, (size_t)runs, sizeof(*s->cpu_ms), compare);
	printf("%smedian %8.3f ms   CPU %8.3f ms   peak RSS %6.2f MiB   (%d runs)\n", label, s->ms[runs / 2],
	       s->cpu_ms[runs / 2], (double)s->peak_kib / 1024, runs);
	return s->ms[runs / 2];
}

int main(int argc, char **argv)
{
	struct subject s[2] = { { 0 } };
	int n = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: measure RUNS COMMAND [ARG...] [--- COMMAND2 [ARG...]]\n");
		return 2;
	}
	int runs = atoi(argv[1]);
	s[0].argv = argv + 2;
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "---") == 0) {
			argv[i] = NULL;
			s[1].argv = argv + i + 1;
			n = 2;
		}
	for (int k = 0; k < n; k++) {
		s[k].ms = calloc((size_t)runs, sizeof(double));
		s[k].cpu_ms = calloc((size_t)runs, sizeof(double));
	}
	for (int i = 0; i < runs; i++)
		for (int k = 0; k < n; k++)
			if (run_once(&s[k], i) < 0)
				return 1;
	if (n == 1) {
		report(&s[0], runs, "");
		return 0;
	}
	double a = report(&s[0], runs, "");
	double b = report(&s[1], runs, "");
	printf("ratio of medians: %.2f\n", a / b);
	return 0;
}
