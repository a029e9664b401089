/*
 * XNU's ledger records (osfmk/kern/ledger.h, bsd/kern/kern_ledger... as the
 * private ledger() system call copies them out), declared here because no
 * SDK header has them. Sizes are checked: a mistake here would read every
 * entry at the wrong offset.
 */
#ifndef HMN_DARWIN_ABI_H
#define HMN_DARWIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#define LEDGER_NAME_MAX 32

#define LEDGER_INFO 0          /* ledger(LEDGER_INFO, pid, struct ledger_info *) */
#define LEDGER_ENTRY_INFO 1    /* ledger(LEDGER_ENTRY_INFO, pid, entries, int *count) */
#define LEDGER_TEMPLATE_INFO 2 /* ledger(LEDGER_TEMPLATE_INFO, templates, int *count) */
#define SYS_LEDGER 373

struct ledger_info {
	char li_name[LEDGER_NAME_MAX];
	int64_t li_id;
	int64_t li_entries;
};

struct ledger_template_info {
	char lti_name[LEDGER_NAME_MAX];
	char lti_group[LEDGER_NAME_MAX];
	char lti_units[LEDGER_NAME_MAX];
};

struct ledger_entry_info {
	int64_t lei_balance;
	int64_t lei_credit;
	int64_t lei_debit;
	uint64_t lei_limit;
	uint64_t lei_refill_period;
	uint64_t lei_last_refill;
};

_Static_assert(sizeof(struct ledger_info) == 48, "ledger_info is 48 bytes");
_Static_assert(sizeof(struct ledger_template_info) == 96, "ledger_template_info is 96 bytes");
_Static_assert(sizeof(struct ledger_entry_info) == 48, "ledger_entry_info is 48 bytes");
_Static_assert(offsetof(struct ledger_entry_info, lei_balance) == 0, "balance first");

#endif
