#include "ram-meter.h"

void ram_meter_init(struct ram_meter *m)
{
	*m = (struct ram_meter){ .peak = HMN_UNKNOWN };
}

void ram_meter_add(struct ram_meter *m, const struct hmn_tree_memory *reading)
{
	m->readings++;
	m->partial += !reading->complete;
	m->is_peak = reading->is_peak;
	if (reading->bytes == HMN_UNKNOWN)
		return;
	m->measured++;
	/*
	 * A reading counts at its lower bound (its bytes when settled), which
	 * counts no page twice. (Set aside once a settled reading had come,
	 * unsettled ones left that one the peak however the tree grew after: a
	 * tree settled at its start, the shell alone, and never again, as a
	 * build that forks every sample, reported the shell's few MiB.)
	 */
	uint64_t bytes = reading->lower_bytes;
	if (bytes != HMN_UNKNOWN && (m->peak == HMN_UNKNOWN || bytes > m->peak)) {
		m->peak = bytes;
		m->measure = reading->measure;
	}
}

void ram_meter_exit_floor(struct ram_meter *m, uint64_t bytes)
{
	if (bytes == HMN_UNKNOWN || (m->peak != HMN_UNKNOWN && (m->measured > 1 || bytes <= m->peak)))
		return;
	m->peak = bytes;
	m->measure = "rss";
}
