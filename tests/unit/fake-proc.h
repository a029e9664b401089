/* Fake /proc trees for the unit tests (read through HMN_PROCFS or an os_proc_root of their own). */
#ifndef HMN_FAKE_PROC_H
#define HMN_FAKE_PROC_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* procfs/PID/FILE holding text, the process's directory (and task/PID, as the kernel has it) made. */
static inline void fake_proc_put(const char *procfs, uint32_t pid, const char *file, const char *text)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%u", procfs, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/task", procfs, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/task/%u", procfs, pid, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/%s", procfs, pid, file);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#endif
