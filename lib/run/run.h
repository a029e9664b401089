/*
 * lib/run: hmn-run.h — running a command and measuring its tree: the
 * command, written once over os/'s (run/command.c), its host memory
 * (run/tree-memory.c) read in turns (the tree meter, run/tree-meter.c).
 * run/ uses lib/util, lib/os, and of lib/gpu only a context's error
 * (gpu/gpu.h); gpu/ never calls it.
 *
 * This header is the tree meter's pure core, for its unit test.
 */
#ifndef HMN_RUN_H_PRIVATE
#define HMN_RUN_H_PRIVATE

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-run.h"

struct os_command;
struct os_proc_root;

/* The OS's side of a command (run/command.c), for what reads its tree. */
struct os_command *command_os(struct hmn_command *command);

/*
 * hmn_tree_meter's core (run/tree-meter.c), pure: brings the meter's last
 * readings to the tree's pids now (sorted, distinct), reading again first
 * the processes it has no reading of, then the others in turn from where
 * the last call stopped, while time_left() says so (at least one is read),
 * and sums what it knows. read answers as os_process_memory() does;
 * running (NULL: not asked) says whether a process read in this call is
 * still running after the reads.
 */
struct tree_meter_entry {
	uint32_t pid;
	uint64_t bytes;
	bool is_rss;
	bool has_reading;     /* false: listed, but no call has had time to read it yet */
	uint64_t read_call;   /* the call that read it last */
	uint64_t first_call;  /* the call that first listed it */
};
struct hmn_tree_meter {
	struct tree_meter_entry *entries; /* sorted by pid: each process's last reading */
	size_t n;
	uint32_t next;                    /* the rotation goes on from the first pid at or above it */
	uint64_t calls;
	uint64_t grew_call;               /* the last call that found a process it had not seen */
	struct os_proc_root *root;        /* where its processes are read: opened at the first reading */
};
int tree_meter_update(struct hmn_tree_meter *m, const uint32_t *pids, size_t n, const char *exact_measure,
		      int (*read)(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss),
		      bool (*time_left)(void *data), bool (*running)(void *data, uint32_t pid), void *data,
		      struct hmn_tree_memory *ret);
/*
 * One call's time (hmn_tree_meter_read), in microseconds on the monotonic
 * clock (clock_us). The budget runs from the call's start: the tree's listing before
 * the reads is paid from it.
 */
struct tree_meter_clock {
	uint64_t deadline;        /* 0: no bound */
	uint64_t reads_start;     /* when the first read began */
	uint64_t reads;           /* read so far */
};
/* Is there time for one more read, as long as those so far took on average? */
bool tree_meter_time_left(const struct tree_meter_clock *c, uint64_t now);

#endif
