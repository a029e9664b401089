/*
 * --pick N: which GPUs a job should use (hmn free --need SIZE --pick N, hmn
 * run --need SIZE --pick N -- COMMAND). The pure part: the holds file's
 * text (what launches on this machine picked and hold for a while), and the
 * choice among the rows. The file itself, its lock and its place are the OS
 * seam's (sys.h); cmd-free.c and cmd-run.c put them together (pick-lock.c).
 */
#ifndef HMN_PICK_H
#define HMN_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"
#include "units.h"

#define PICK_HOLDS_MAX 256       /* holds kept in the file: a hostile one cannot make it grow */
#define PICK_KEY_MAX 96          /* a GPU's key: its UUID ("GPU-…", "MIG-…"), else its PCI address */
#define PICK_FILE_MAX (PICK_HOLDS_MAX * (PICK_KEY_MAX + 48)) /* the most of the file read */
#define PICK_HOLD_DEFAULT_US (30ULL * 1000000)
#define PICK_HOLD_MAX_US (3600ULL * 1000000) /* --hold's bound; a hold claiming more is not believed */

/* One GPU picked by a live hmn run: not picked again until it expires or the run lets it go. */
struct pick_hold {
	char key[PICK_KEY_MAX];
	uint32_t pid;            /* the hmn run that holds it */
	uint64_t expires_ms;     /* wall clock, milliseconds since the epoch */
};

struct pick_holds {
	struct pick_hold items[PICK_HOLDS_MAX];
	size_t n;
};

/*
 * The file's text (any bytes; another user may have written it) into
 * *ret: each line "KEY PID EXPIRES_MS" that parses, has not expired at
 * now_ms and does not claim to last past now_ms + PICK_HOLD_MAX_US; the rest
 * is dropped. At most PICK_HOLDS_MAX.
 */
void pick_holds_parse(const char *text, size_t len, uint64_t now_ms, struct pick_holds *ret);
/* The holds as the file's text, into buf (size bytes, NUL-terminated); returns the length, or 0 when it does not fit. */
size_t pick_holds_format(const struct pick_holds *holds, char *buf, size_t size);
/* Adds a hold (false when full); removes those of pid (key NULL: all of them). */
bool pick_holds_add(struct pick_holds *holds, const char *key, uint32_t pid, uint64_t expires_ms);
size_t pick_holds_remove(struct pick_holds *holds, const char *key, uint32_t pid);
bool pick_holds_has(const struct pick_holds *holds, const char *key);

/*
 * The key a GPU row is held by (its UUID, else its PCI address, else its
 * index), one word of printable ASCII: into key; false when the row cannot
 * be picked (a GPU whose memory is used through its MIG instances, a
 * vendor whose runtime hmn cannot point at one GPU).
 */
bool pick_key(const struct hmn_gpu *g, char key[PICK_KEY_MAX]);

/* Is g a GPU whose memory is used through the MIG instances among rows (not a place to put a job)? */
bool used_through_instances(const struct hmn_gpu *const *rows, size_t n, const struct hmn_gpu *g);
/*
 * Is a closer to --need than b? The more free for a SIZE; for N%, the larger
 * share of its own memory free (a small GPU nearly empty is closer to 90%
 * than a large one half full), where both say their totals.
 */
bool closer_to_need(const struct size_arg *need, const struct hmn_gpu *a, const struct hmn_gpu *b);

/* Why rows were not picked, for the message when too few were. */
struct pick_outcome {
	size_t fitting;          /* rows with SIZE free and not held: picked, up to the N asked */
	size_t held;             /* rows with SIZE free, held by another launch */
	const struct hmn_gpu *most; /* among the rest, the one closest to SIZE; NULL: none says */
};

/*
 * Picks up to want rows that can be picked, are not held and have need
 * free (N%: of each one's total), the most free first (ties: the lower
 * index), into ret (want entries). rows may hold a GPU and its MIG
 * instances: the instances are picked, never the GPU they divide.
 */
void pick_gpus(const struct hmn_gpu *const *rows, size_t n, const struct size_arg *need,
	       const struct pick_holds *holds, const struct hmn_gpu **ret, size_t want,
	       struct pick_outcome *ret_outcome);

/*
 * What names a picked GPU to its runtime: its UUID, else its index among
 * the GPUs of its vendor in all (hmn's order), into buf. The variable it
 * goes in: CUDA_VISIBLE_DEVICES (NVIDIA), ROCR_VISIBLE_DEVICES (AMD).
 */
const char *pick_id(const struct hmn_gpu *g, const struct hmn_gpu_list *all, char *buf, size_t size);
const char *pick_variable(const struct hmn_gpu *g);

/* ---- the file, locked (pick-lock.c: the tool's; it may say why on stderr) ---- */

/*
 * A launch waits this long for another's pick, then goes on without the
 * lock (honouring the holds it can read): never wedged by a user who holds
 * it. Long enough for a pick whose query runs nvidia-smi.
 */
#define PICK_LOCK_WAIT_MS 10000

struct pick_file {
	int fd;                  /* -1: not locked (the holds then are what could be read, or none) */
	char where[256];
	struct pick_holds holds; /* those of live hmn runs, not expired */
};

/*
 * Locks the machine's holds file (a bounded wait) and reads its holds, the
 * expired ones and those of hmn runs no longer running dropped. Where it
 * cannot be locked, says so on stderr (unless quiet) and goes on without:
 * a launch is never wedged. Returns 0, or -ENOMEM.
 */
int pick_file_open(struct pick_file *f, uint64_t wait_ms, bool quiet);
/* Writes the holds back (when locked): 0 or -errno. */
int pick_file_save(struct pick_file *f);
void pick_file_close(struct pick_file *f);
/*
 * Lets go of this process's holds on these keys (NULL: all of them): the
 * run's tree holds what it asked for there (wait_ms 0: a sample never
 * waits for the lock), or it ended (a short wait, so that the file says
 * so). False when the lock could not be had: try again later.
 */
bool pick_release(const char *const *keys, size_t n_keys, uint64_t wait_ms);

#endif
