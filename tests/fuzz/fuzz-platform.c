/*
 * libFuzzer harness: what Windows and macOS hand hmn — UTF-16 names, PDH
 * instance names, PATHEXT and command-line arguments, ledger templates,
 * KERN_PROCARGS2's command lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dxgi-pdh/dxgi-pdh-parse.h"
#include "gpu/metal/metal-abi.h"
#include "gpu/metal/metal.h"
#include "os/darwin/darwin-parse.h"
#include "os/windows/command-line.h"
#include "util/text.h"

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

	/* The bytes as a NUL-terminated PATHEXT and as one argument of a command line, both quotings. */
	uint16_t *text = malloc((units + 1) * sizeof(*text));
	if (!text)
		return 0;
	memcpy(text, data, units * 2);
	text[units] = 0;
	struct pathext_entry exts[8];
	size_t n_exts = pathext_split(text, exts, 8);
	if (n_exts > 8)
		abort();
	for (size_t i = 0; i < n_exts; i++)
		if (exts[i].ext[0] != '.' || !exts[i].ext[1])
			abort();
	(void)pathext_has(text, exts, n_exts);
	(void)windows_is_batch(text);
	static uint16_t line[256];
	for (int batch = 0; batch < 2; batch++) {
		const uint16_t prefix[] = { 'x', 0 };
		size_t len = 0;
		line[0] = 0;
		if (cmdline_append(line, 256, &len, prefix) < 0)
			abort();
		size_t before = len;
		int r = batch ? cmdline_append_batch(line, 256, &len, text) : cmdline_append(line, 256, &len, text);
		size_t real = 0;
		while (real < 256 && line[real])
			real++;
		if (real != len || (r < 0 && len != before) || (r == 0 && len <= before) || len >= 256)
			abort();
	}
	free(text);

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

	/* The bytes as a KERN_PROCARGS2 answer: words within it and the bound, counted as they lie. */
	char *args = malloc(size ? size : 1);
	if (!args)
		return 0;
	memcpy(args, data, size);
	size_t start = 0, len = 0, max = size / 2 + 1;
	size_t words = parse_procargs2(args, size, max, &start, &len);
	if (words > 0) {
		size_t nuls = 0;
		if (start > size || len > size - start || len > max || len == 0)
			abort();
		for (size_t k = start; k < start + len; k++)
			nuls += args[k] == '\0';
		if (nuls + 1 != words || args[start + len - 1] == '\0')
			abort();
	}
	free(args);
	return 0;
}
