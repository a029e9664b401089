/*
 * From DRM clients to rows. A client (one drm-client-id on one GPU) is
 * reached through every descriptor that shares its open file: dup(), fork()
 * and descriptor passing all give other descriptors, even other processes,
 * the same client. Counting it at each would count its memory many times.
 * So a client counts once per process (however many of its descriptors
 * reach it) and its memory once per GPU: in the row of the lowest PID that
 * holds it (the parent, after a fork). The other processes still get their
 * row, with the type of the work and 0 bytes from that client. Pure: the
 * unit tests reach all of it.
 */
#include <stdlib.h>

#include "gpu/drm/drm-parse.h"
#include "hmn.h"

static int compare_by_client(const void *a, const void *b)
{
	const struct drm_usage *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->has_client_id != y->has_client_id)
		return x->has_client_id ? -1 : 1;
	if (x->client_id != y->client_id)
		return x->client_id < y->client_id ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return 0;
}

static int compare_by_row(const void *a, const void *b)
{
	const struct drm_usage *x = a, *y = b;
	if (x->dropped != y->dropped)
		return x->dropped ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return 0;
}

static bool same_client(const struct drm_usage *x, const struct drm_usage *y)
{
	return x->has_client_id && y->has_client_id && x->gpu == y->gpu &&
	       x->client_id == y->client_id;
}

/* Adds b into a, where HMN_UNKNOWN + known = known and the sum saturates. */
static uint64_t add_known(uint64_t a, uint64_t b)
{
	if (a == HMN_UNKNOWN)
		return b;
	if (b == HMN_UNKNOWN)
		return a;
	return a > UINT64_MAX - 1 - b ? UINT64_MAX - 1 : a + b;
}

size_t drm_merge_clients(struct drm_usage *c, size_t n)
{
	size_t rows = 0;

	if (n == 0)
		return 0; /* c may be NULL: qsort must not see it */
	qsort(c, n, sizeof(*c), compare_by_client);
	/* c[start] is the lowest pid holding a client: it keeps the memory. */
	for (size_t i = 1, start = 0, keep = 0; i < n; i++) {
		if (!same_client(&c[start], &c[i])) {
			start = keep = i;
		} else if (c[i].pid == c[keep].pid) {
			c[keep].type |= c[i].type; /* the same client through a second descriptor */
			c[i].dropped = true;
		} else {
			keep = i;
			if (c[i].local_bytes != HMN_UNKNOWN)
				c[i].local_bytes = 0;
			if (c[i].shared_bytes != HMN_UNKNOWN)
				c[i].shared_bytes = 0;
		}
	}
	qsort(c, n, sizeof(*c), compare_by_row);
	for (size_t i = 0; i < n && !c[i].dropped; i++) {
		if (rows > 0 && c[rows - 1].pid == c[i].pid && c[rows - 1].gpu == c[i].gpu) {
			struct drm_usage *row = &c[rows - 1];
			row->local_bytes = add_known(row->local_bytes, c[i].local_bytes);
			row->shared_bytes = add_known(row->shared_bytes, c[i].shared_bytes);
			row->type |= c[i].type;
		} else {
			c[rows++] = c[i];
		}
	}
	return rows;
}
