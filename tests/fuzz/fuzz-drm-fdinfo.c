/* libFuzzer harness: DRM fdinfo parsing, the client merge and the pci.ids lookup. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/drm/drm-parse.h"
#include "gpu/pci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly size bytes, no terminator: the parser must not read past. */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);

	struct drm_fdinfo info;
	if (drm_parse_fdinfo(copy, size, &info) == 0) {
		if (!memchr(info.driver, '\0', sizeof(info.driver)) ||
		    !memchr(info.pdev, '\0', sizeof(info.pdev)) || info.driver[0] == '\0')
			abort();
		if (info.engines & ~(unsigned)(HMN_PROCESS_COMPUTE | HMN_PROCESS_GRAPHICS))
			abort();
		/* The same client seen by two processes and twice by one: one row each, memory once. */
		struct drm_usage c[3];
		for (int i = 0; i < 3; i++)
			c[i] = (struct drm_usage){ .pid = i == 2 ? 9 : 7, .gpu = 0,
						   .client_id = info.client_id, .has_client_id = true,
						   .local_bytes = info.local_bytes,
						   .shared_bytes = info.shared_bytes, .type = info.engines };
		size_t n = drm_merge_clients(c, 3);
		if (n != 2 || c[0].pid != 7 || c[1].pid != 9 || c[0].local_bytes != info.local_bytes ||
		    (info.local_bytes != HMN_UNKNOWN && c[1].local_bytes != 0))
			abort();
	}
	uint64_t v;
	if (drm_parse_size(copy, size, &v) && size == 0)
		abort();

	char name[64];
	unsigned vendor = size >= 2 ? (unsigned)(data[0] << 8 | data[1]) : 0x1002;
	if (pci_ids_name(copy, size, vendor, 0x744c, name, sizeof(name)) &&
	    (strlen(name) >= sizeof(name) || name[0] == '\0'))
		abort();
	free(copy);
	return 0;
}
