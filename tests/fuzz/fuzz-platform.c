/* libFuzzer harness: what Windows and macOS hand hmn — UTF-16 names, PDH instance names, ledger templates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "darwin-abi.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The bytes as UTF-16 units, exactly size / 2 of them, no terminator. */
	size_t units = size / 2;
	uint16_t *wide = malloc((units ? units : 1) * sizeof(*wide));
	char out[64];
	if (!wide)
		return 0;
	memcpy(wide, data, units * 2);
	size_t n = utf16_to_utf8(wide, units, out, sizeof(out));
	if (n >= sizeof(out) || strlen(out) != n)
		abort();
	free(wide);

	/* The bytes as a PDH instance name. */
	char *name = malloc(size + 1);
	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	struct pdh_instance inst;
	if (pdh_parse_instance(name, &inst) && (strlen(inst.engine_type) >= sizeof(inst.engine_type) ||
						(inst.has_pid && strncmp(name, "pid_", 4) != 0)))
		abort();
	free(name);

	/* The bytes as a ledger template: exactly the whole records they hold. */
	size_t records = size / sizeof(struct ledger_template_info);
	void *templates = malloc(records ? records * sizeof(struct ledger_template_info) : 1);
	if (!templates)
		return 0;
	memcpy(templates, data, records * sizeof(struct ledger_template_info));
	int i = ledger_entry_index(templates, records, "graphics_footprint");
	if (i >= (int)records)
		abort();
	free(templates);
	return 0;
}
