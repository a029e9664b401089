/*
 * hmn_tree_meter: a tree's host memory read again and again, each
 * process's last reading kept, so that a tree too costly to read whole in
 * one sample (Linux's smaps_rollup walks every page table) is read in turns
 * over a few samples instead of stalling one. Pure but for the /proc it
 * keeps open to read from (closed with it): the reading and the
 * clock come from the caller (run/tree-memory.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "os/os.h"
#include "run/run.h"

struct hmn_tree_meter *hmn_tree_meter_new(void)
{
	return calloc(1, sizeof(struct hmn_tree_meter));
}

struct hmn_tree_meter *hmn_tree_meter_free(struct hmn_tree_meter *meter)
{
	if (meter) {
		os_proc_root_close(meter->root);
		free(meter->entries);
		free(meter);
	}
	return NULL;
}

/* The last reading of pid, or NULL: entries are sorted by pid. */
static const struct tree_meter_entry *last_reading(const struct hmn_tree_meter *m, uint32_t pid)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->entries[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->entries[lo].pid == pid ? &m->entries[lo] : NULL;
}

enum { UNREAD, READ, GONE };

/* Reads a process (again), and says in *state what became of it. */
static void read_again(struct tree_meter_entry *e, unsigned char *state,
		       int (*read)(void *, uint32_t, uint64_t *, bool *), void *data)
{
	uint64_t bytes;
	bool is_rss = false;
	int r = read(data, e->pid, &bytes, &is_rss);
	if (r == -ESRCH) {
		*state = GONE;
		return;
	}
	if (r == 0) {
		e->bytes = bytes;
		e->is_rss = is_rss;
	} else {
		e->bytes = 0; /* not ours to read (another user's, setuid): left out */
		e->is_rss = false;
	}
	e->has_reading = true;
	*state = READ;
}

/* Was this reading taken before the tree last grew (a share the newcomer may have split since)? */
static bool unsettled(const struct hmn_tree_meter *m, const struct tree_meter_entry *e)
{
	return e->read_call < m->grew_call;
}

/*
 * The sum without what it may count twice: a reading taken before the tree
 * last grew counts the pages it shared then whole, or at the share of
 * those it shared them with then; a process that came since (a fork) may
 * share them now, and its own reading counts its share of them again. Each
 * such page is counted twice at most by as much as the newcomers count of
 * it, so the sum less every newcomer's figure (those first listed after
 * the oldest reading kept) counts no page twice. Lower than the truth by
 * what the newcomers hold of their own, which the next settled reading
 * has.
 */
static uint64_t lower_bound(const struct hmn_tree_meter *m, uint64_t total)
{
	uint64_t oldest = UINT64_MAX, newcomers = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->entries[i].has_reading && unsettled(m, &m->entries[i]) && m->entries[i].read_call < oldest)
			oldest = m->entries[i].read_call;
	for (size_t i = 0; i < m->n; i++)
		if (m->entries[i].has_reading && m->entries[i].first_call > oldest)
			newcomers += m->entries[i].bytes;
	return newcomers < total ? total - newcomers : 0;
}

int tree_meter_update(struct hmn_tree_meter *m, const uint32_t *pids, size_t n, const char *exact_measure,
		      int (*read)(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss),
		      bool (*time_left)(void *data), bool (*running)(void *data, uint32_t pid), void *data,
		      struct hmn_tree_memory *ret)
{
	struct tree_meter_entry *entries = malloc((n ? n : 1) * sizeof(*entries));
	unsigned char *state = calloc(n ? n : 1, 1);
	size_t reads = 0;

	if (!entries || !state) {
		free(entries);
		free(state);
		return -ENOMEM;
	}
	m->calls++;
	for (size_t i = 0; i < n; i++) {
		const struct tree_meter_entry *last = last_reading(m, pids[i]);
		entries[i] = last ? *last : (struct tree_meter_entry){ .pid = pids[i], .first_call = m->calls };
		if (!last)
			m->grew_call = m->calls;
	}
	/* New processes first: a process nobody has read counts nothing until it is. */
	for (size_t i = 0; i < n; i++)
		if (!entries[i].has_reading && (reads == 0 || time_left(data))) {
			read_again(&entries[i], &state[i], read, data);
			entries[i].read_call = m->calls;
			reads++;
		}
	/*
	 * Then the others in turn, from where the last call stopped: first
	 * those read before the tree last grew, then the rest.
	 */
	size_t start = 0;
	bool out_of_time = false;
	while (start < n && pids[start] < m->next)
		start++;
	for (int pass = 0; pass < 2 && !out_of_time; pass++)
		for (size_t k = 0; k < n && !out_of_time; k++) {
			size_t i = (start + k) % n;
			if (state[i] != UNREAD || !entries[i].has_reading || unsettled(m, &entries[i]) != (pass == 0))
				continue;
			if (reads > 0 && !time_left(data)) {
				m->next = pids[i];
				out_of_time = true;
				continue;
			}
			read_again(&entries[i], &state[i], read, data);
			entries[i].read_call = m->calls;
			reads++;
			m->next = pids[i] + 1;
		}
	/*
	 * A process read in this call that has ended since (a worker killed
	 * mid-reading): its share was taken while it still split pages that
	 * the others' later readings count whole, so the sum would count them
	 * twice (a parent's 512 MiB read across its four workers' ends summed
	 * to 820 MiB). Left out: what is left is a floor, never more.
	 */
	for (size_t i = 0; running && i < n; i++)
		if (state[i] == READ && entries[i].read_call == m->calls && !running(data, entries[i].pid))
			state[i] = GONE;
	/* What is known now: the processes still there, each with its last reading. */
	uint64_t total = 0;
	bool rss = false, complete = true, settled = true;
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (state[i] == GONE)
			continue;
		complete &= state[i] == READ;
		settled &= entries[i].has_reading && !unsettled(m, &entries[i]);
		total += entries[i].bytes;
		rss |= entries[i].is_rss;
		entries[kept++] = entries[i];
	}
	free(m->entries);
	m->entries = entries;
	m->n = kept;
	free(state);
	/* No process of the tree left to read (it ended before this call): nothing measured, not 0 bytes. */
	uint64_t bytes = kept ? total : HMN_UNKNOWN;
	*ret = (struct hmn_tree_memory){
		.bytes = bytes, .measure = rss ? "rss" : exact_measure, .complete = complete, .settled = settled,
		.lower_bytes = settled || !kept ? bytes : lower_bound(m, total),
	};
	return 0;
}

bool tree_meter_time_left(const struct tree_meter_clock *c, uint64_t now)
{
	if (c->deadline == 0)
		return true;
	/*
	 * The average is of the reads alone, from the first: counted from the
	 * call's start, the listing's time spread over the reads made the
	 * first few look as costly as the listing itself, and where the
	 * listing took half the budget, one process was read a sample.
	 */
	uint64_t average = c->reads && now > c->reads_start ? (now - c->reads_start) / c->reads : 0;
	return now + average < c->deadline;
}
