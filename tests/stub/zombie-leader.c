/*
 * zombie-leader BYTES SECONDS PIDFILE: forks a process whose main thread
 * ends at once (pthread_exit in main: /proc/PID/stat says Z from then on,
 * before any listing can find it running) while another thread touches
 * 64 MiB of RAM and holds BYTES of GPU memory in the stand-in NVML for
 * SECONDS, as gpu-hold does (a line of its own in $HMN_STUB_SCENARIO,
 * replaced under the same lock), then takes its line out and ends the
 * process. Its pid goes to PIDFILE. Such a process runs, and holds
 * what it holds: hmn run must count it, and --limit stop it. The first
 * process waits for it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define RAM_BYTES (64u << 20)

static const char *scenario;
static unsigned long long bytes;
static double seconds;

/* The scenario less this process's line, and with it again when add. */
static void edit(int add)
{
	char lock[4096], tmp[4096], mine[64], line[4096];
	snprintf(lock, sizeof(lock), "%s.lock", scenario);
	snprintf(tmp, sizeof(tmp), "%s.zombie-leader.%d", scenario, (int)getpid());
	snprintf(mine, sizeof(mine), " pid=%d ", (int)getpid());
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		exit(2);
	FILE *in = fopen(scenario, "r"), *out = fopen(tmp, "w");
	if (!out)
		exit(2);
	while (in && fgets(line, sizeof(line), in))
		if (strncmp(line, "proc ", 5) != 0 || !strstr(line, mine))
			fputs(line, out);
	if (add)
		fprintf(out, "proc gpu=0 pid=%d used=%llu list=compute\n", (int)getpid(), bytes);
	if (in)
		fclose(in);
	if (fclose(out) != 0 || rename(tmp, scenario) != 0)
		exit(2);
	close(fd);
}

static void *holder(void *data)
{
	FILE *f = fopen(data, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
		exit(2);
	char *ram = malloc(RAM_BYTES);
	if (!ram)
		exit(2);
	memset(ram, 1, RAM_BYTES);
	/* Touched for real: at -O2 a memset of memory that nothing reads is taken out. */
	__asm__ volatile("" : : "r"(ram) : "memory");
	/* The main thread has ended by the time the line is in (what a sample then finds). */
	usleep(100000);
	edit(1);
	usleep((useconds_t)(seconds * 1e6));
	edit(0);
	exit(ram[RAM_BYTES - 1] == 1 ? 0 : 2);
}

int main(int argc, char **argv)
{
	pthread_t thread;
	scenario = getenv("HMN_STUB_SCENARIO");
	if (argc != 4 || !scenario)
		return 2;
	bytes = strtoull(argv[1], NULL, 10);
	seconds = atof(argv[2]);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid > 0) {
		int status;
		return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	/* Nothing between fork and pthread_exit but this: no listing is to find it running. */
	if (pthread_create(&thread, NULL, holder, argv[3]) != 0)
		return 2;
	pthread_exit(NULL);
}
