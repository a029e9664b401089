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
	if (m->settled_seen && !reading->settled)
		return;
	/* The first settled reading replaces whatever unsettled ones said. */
	bool first_settled = reading->settled && !m->settled_seen;
	if (first_settled || m->peak == HMN_UNKNOWN || reading->bytes > m->peak) {
		m->peak = reading->bytes;
		m->measure = reading->measure;
	}
	m->settled_seen |= reading->settled;
}

void ram_meter_exit_floor(struct ram_meter *m, uint64_t bytes)
{
	if (bytes == HMN_UNKNOWN || (m->peak != HMN_UNKNOWN && (m->measured > 1 || bytes <= m->peak)))
		return;
	m->peak = bytes;
	m->measure = "rss";
}
