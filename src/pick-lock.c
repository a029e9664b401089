/*
 * --pick's holds file, locked: what two launches at once read and write so
 * that they never pick the same GPU (pick.h). A lock that cannot be had
 * (another user holds it, the file is not a plain one) is said and gone
 * around: a launch waits a bounded time, never for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "sys.h"
#include "util/clock.h"

/* Drops the holds of hmn runs that are no longer running: their picks are free again. */
static void drop_dead(struct pick_holds *holds)
{
	size_t kept = 0;
	for (size_t i = 0; i < holds->n; i++)
		if (sys_pid_alive(holds->items[i].pid))
			holds->items[kept++] = holds->items[i];
	holds->n = kept;
}

int pick_file_open(struct pick_file *f, uint64_t wait_ms, bool quiet)
{
	char *text = malloc(PICK_FILE_MAX);
	int fd = -1;

	f->fd = -1;
	f->holds.n = 0;
	if (!text)
		return -ENOMEM;
	int r = sys_pick_file_lock(wait_ms, &fd, f->where, sizeof(f->where));
	if (r < 0 && !quiet)
		fprintf(stderr, "hmn: cannot lock %s (%s): picking without it; launches at this moment may "
			"pick the same GPU\n", f->where,
			r == -ETIMEDOUT ? "held by another process past the wait"
			: r == -EPERM ? "not a plain file of its own" : strerror(-r));
	/* Locked, or open but not locked (the wait ran out): the holds are read, and honoured, either way. */
	if (r == 0 || r == -ETIMEDOUT) {
		long len = sys_pick_file_read(fd, text, PICK_FILE_MAX);
		if (len > 0)
			pick_holds_parse(text, (size_t)len, clock_wall_us() / 1000, &f->holds);
		drop_dead(&f->holds);
	}
	if (r == 0)
		f->fd = fd;
	else if (r == -ETIMEDOUT)
		sys_pick_file_unlock(fd);
	free(text);
	return 0;
}

int pick_file_save(struct pick_file *f)
{
	char *text;
	if (f->fd < 0)
		return 0;
	if (!(text = malloc(PICK_FILE_MAX)))
		return -ENOMEM;
	size_t len = pick_holds_format(&f->holds, text, PICK_FILE_MAX);
	int r = sys_pick_file_write(f->fd, text, len);
	free(text);
	return r;
}

void pick_file_close(struct pick_file *f)
{
	sys_pick_file_unlock(f->fd);
	f->fd = -1;
}

bool pick_release(const char *const *keys, size_t n_keys, uint64_t wait_ms)
{
	struct pick_file *f = malloc(sizeof(*f));
	uint32_t self = hmn_self_pid();
	size_t removed = 0;

	/* Quietly: a hold not let go of now is tried again, or ends with this process or when it expires. */
	if (!f || pick_file_open(f, wait_ms, true) < 0 || f->fd < 0) {
		free(f);
		return false;
	}
	if (!keys)
		removed = pick_holds_remove(&f->holds, NULL, self);
	for (size_t i = 0; keys && i < n_keys; i++)
		removed += pick_holds_remove(&f->holds, keys[i], self);
	bool saved = removed == 0 || pick_file_save(f) == 0;
	pick_file_close(f);
	free(f);
	return saved;
}
