/* The RAM meter (src/ram-meter.c): the tree's peak host memory, and how that peak was measured. */
#include <string.h>

#include "ram-meter.h"
#include "tap.h"

#define MIB (1ULL << 20)

static void add(struct ram_meter *m, uint64_t bytes, const char *measure, bool complete)
{
	struct hmn_tree_memory r = { .bytes = bytes, .measure = measure, .complete = complete, .settled = true, .lower_bytes = bytes };
	ram_meter_add(m, &r);
}

int main(void)
{
	struct ram_meter m;
	ram_meter_init(&m);
	ok(m.peak == HMN_UNKNOWN && m.measure == NULL, "nothing measured: unknown");

	add(&m, 300 * MIB, "pss", true);
	add(&m, 900 * MIB, "pss", false);
	add(&m, 500 * MIB, "rss", true);
	is_u64(m.peak, 900 * MIB, "the largest reading is the peak");
	ok(strcmp(m.measure, "pss") == 0, "measured as its own reading was (a later, smaller rss one changes nothing)");
	add(&m, 1000 * MIB, "rss", true);
	ok(strcmp(m.measure, "rss") == 0, "a larger rss reading: the peak is an rss figure");
	add(&m, HMN_UNKNOWN, NULL, true);
	is_u64(m.peak, 1000 * MIB, "an unknown reading keeps the peak");
	ok(strcmp(m.measure, "rss") == 0, "and its measure");
	is_u64(m.readings, 5, "five readings");
	is_u64(m.partial, 1, "one of them partial");
	ok(!m.is_peak, "no peak readings");
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 5, .measure = "commit", .is_peak = true, .complete = true, .settled = true, .lower_bytes = 5 });
	ok(m.is_peak, "a reading that is the OS's own peak says so");

	/*
	 * Unsettled readings (a fork since some process was read: shares counted twice) count at
	 * their lower bound, the sum without what it may count twice: never above the truth, so
	 * never set aside either.
	 */
	ram_meter_init(&m);
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 900 * MIB, .lower_bytes = 500 * MIB, .measure = "pss" });
	is_u64(m.peak, 500 * MIB, "an unsettled reading: its lower bound, not its sum (which counts shares twice)");
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 520 * MIB, .lower_bytes = 520 * MIB, .measure = "pss",
						     .settled = true });
	is_u64(m.peak, 520 * MIB, "a settled one above it");
	/* A tree settled once at its start and never again (a build forking every sample): no pin. */
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 3000 * MIB, .lower_bytes = 2000 * MIB, .measure = "rss" });
	is_u64(m.peak, 2000 * MIB, "a later unsettled one that holds more at least: the peak, not the early settled figure");
	ok(strcmp(m.measure, "rss") == 0, "measured as that reading was");
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 600 * MIB, .lower_bytes = 600 * MIB, .measure = "pss",
						     .settled = true });
	is_u64(m.peak, 2000 * MIB, "a smaller settled one after it changes nothing");
	ram_meter_add(&m, &(struct hmn_tree_memory){ .bytes = 5000 * MIB, .lower_bytes = HMN_UNKNOWN });
	is_u64(m.peak, 2000 * MIB, "an unsettled reading with no lower bound counts nothing");

	/* What the OS kept of the ended tree: the peak only where the samples did not see it run. */
	ram_meter_init(&m);
	add(&m, HMN_UNKNOWN, NULL, true);
	ram_meter_exit_floor(&m, 1 * MIB);
	ok(m.peak == 1 * MIB && strcmp(m.measure, "rss") == 0, "nothing measured: the exit's resident set, as rss");
	ram_meter_init(&m);
	add(&m, 16 * 1024, "pss", true);
	add(&m, HMN_UNKNOWN, NULL, true);
	ram_meter_exit_floor(&m, 1 * MIB);
	ok(m.peak == 1 * MIB && strcmp(m.measure, "rss") == 0, "one reading found it (starting): the exit's, larger");
	ram_meter_init(&m);
	add(&m, 16 * 1024, "pss", true);
	add(&m, 12 * 1024, "pss", true);
	ram_meter_exit_floor(&m, 1 * MIB);
	ok(m.peak == 16 * 1024 && strcmp(m.measure, "pss") == 0, "a tree two readings found: its own readings stay");
	ram_meter_init(&m);
	add(&m, 2 * MIB, "pss", true);
	ram_meter_exit_floor(&m, 1 * MIB);
	ok(m.peak == 2 * MIB && strcmp(m.measure, "pss") == 0, "a larger reading stays");
	ram_meter_exit_floor(&m, HMN_UNKNOWN);
	is_u64(m.peak, 2 * MIB, "an unknown floor changes nothing");
	return tap_done();
}
