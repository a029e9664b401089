/* The peaks table (src/peaks.c): bounded for hmn watch, exact for hmn run. */
#include <stdlib.h>
#include <string.h>

#include "peaks.h"
#include "tap.h"

static int add(struct peaks *p, uint32_t pid, uint64_t bytes)
{
	struct hmn_process row = { .pid = pid, .used_bytes = bytes, .name = "x" };
	return peaks_add(p, &row, 0);
}

int main(void)
{
	/* 200,000 processes come and go, each seen once; the highest are pids 1 to 5. */
	struct peaks w = { .limit = 300 };
	int r = 0;
	for (uint32_t pid = 200000; pid >= 1 && r == 0; pid--)
		r = add(&w, pid, 1000000000ULL - pid);
	ok(r == 0, "200,000 distinct pids added");
	ok(w.count <= 600 && w.capacity <= 1024, "bounded: %zu entries, room for %zu", w.count, w.capacity);
	const struct peak **top = peaks_sorted(&w);
	ok(top && top[0]->pid == 1 && top[4]->pid == 5, "the highest are kept, largest first");
	/* A kept process that grows is still found and raised. */
	ok(add(&w, 3, 2000000000ULL) == 0, "a kept pid again");
	free(top);
	top = peaks_sorted(&w);
	ok(top && top[0]->pid == 3 && top[0]->bytes == 2000000000ULL, "its peak raised, not a second entry");
	free(top);
	peaks_clear(&w);

	/* No limit (hmn run): every process stays. */
	struct peaks all = { 0 };
	for (uint32_t pid = 1; pid <= 5000; pid++)
		add(&all, pid, pid);
	ok(all.count == 5000, "unbounded keeps all %zu", all.count);
	peaks_clear(&all);
	/* A pid given again later is another process: its own peak, its own name. */
	struct peaks q = { 0 };
	struct hmn_process rows[] = {
		{ .pid = 4242, .start_time = 1000, .used_bytes = 2 << 20, .name = "python3" },
		{ .pid = 4242, .start_time = 1000, .used_bytes = 3 << 20, .name = "python3" },
		{ .pid = 4242, .start_time = 9000, .used_bytes = 1 << 20, .name = "bash" },
	};
	for (size_t i = 0; i < 3; i++)
		peaks_add(&q, &rows[i], 0);
	const struct peak **reused = peaks_sorted(&q);
	ok(reused && q.count == 2 && reused[0]->start_time == 1000 && reused[0]->bytes == 3 << 20 &&
		   strcmp(reused[0]->name, "python3") == 0 && reused[1]->start_time == 9000 &&
		   reused[1]->bytes == 1 << 20 && strcmp(reused[1]->name, "bash") == 0,
	   "pid 4242 reused: two processes, each with its peak and name (%zu)", q.count);
	free(reused);
	peaks_clear(&q);
	/* When each process was last seen with a figure: hmn run's check of the driver's accounting record. */
	struct peaks t = { 0 };
	struct hmn_process a = { .pid = 7, .start_time = 100, .used_bytes = 5 }, b = a;
	b.start_time = 200; /* the pid given again */
	peaks_add(&t, &a, 1000);
	peaks_add(&t, &a, 2000);
	peaks_add(&t, &b, 3000);
	const struct peak **seen = peaks_sorted(&t);
	ok(seen && t.count == 2 && seen[0]->start_time == 100 && seen[0]->last_seen_us == 2000 &&
	   seen[1]->last_seen_us == 3000, "last seen kept per process, not per pid");
	free(seen);
	peaks_clear(&t);
	/* MIG: one process on two instances of GPU 0 is two peaks; on the same instance, one. */
	struct peaks m = { .limit = 7 };
	struct hmn_process on = { .pid = 9, .used_bytes = 1 << 20, .place = { 0, true, 2, 0 } };
	struct hmn_process other = on, same = on;
	other.place.compute_instance_id = 1; /* 0/2.1 beside 0/2.0 */
	same.used_bytes = 3 << 20;
	peaks_add(&m, &on, 0);
	peaks_add(&m, &other, 0);
	peaks_add(&m, &same, 0);
	const struct peak **mig = peaks_sorted(&m);
	ok(mig && m.count == 2 && mig[0]->bytes == 3 << 20 && mig[0]->place.compute_instance_id == 0 &&
		   mig[1]->place.compute_instance_id == 1,
	   "MIG: 0/2.0 and 0/2.1 are two places of one process, each its peak (%zu)", m.count);
	free(mig);
	peaks_clear(&m);
	ok(m.count == 0 && m.limit == 7, "cleared: nothing kept, its limit stays");
	return tap_done();
}
