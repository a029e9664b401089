/*
 * The arithmetic of the Metal source, with no macOS: finding a ledger entry
 * by name in the template the kernel copies out, reading its balance, and
 * the unified-memory figures. Pure, so that it is unit-tested on Linux.
 */
#include <string.h>

#include "gpu/metal/metal-abi.h"
#include "gpu/metal/metal.h"
#include "hmn-common.h"

int ledger_entry_index(const void *templates, size_t count, const char *name)
{
	const struct ledger_template_info *t = templates;
	for (size_t i = 0; i < count && i < INT32_MAX; i++)
		/* The name need not be NUL-terminated if it fills its field. */
		if (strnlen(t[i].lti_name, LEDGER_NAME_MAX) == strlen(name) &&
		    memcmp(t[i].lti_name, name, strlen(name)) == 0)
			return (int)i;
	return -1;
}

uint64_t ledger_entry_balance(const void *entries, size_t count, int index)
{
	const struct ledger_entry_info *e = entries;
	if (index < 0 || (size_t)index >= count || e[index].lei_balance < 0)
		return HMN_UNKNOWN;
	return (uint64_t)e[index].lei_balance;
}

void uma_figures(uint64_t total, uint64_t budget, uint64_t *ret_used, uint64_t *ret_free)
{
	/* No budget (no Metal device): all of it is the GPU's to take. */
	uint64_t free_bytes = budget == HMN_UNKNOWN || budget > total ? total : budget;
	*ret_free = free_bytes;
	*ret_used = total - free_bytes;
}
