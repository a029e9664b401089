/* What the NVML source decides from the driver's words alone: pure, unit-tested anywhere. */
#include <string.h>

#include "gpu/nvml/nvml-parse.h"
#include "util/number.h"

bool nvml_v3_entries_are_32_bytes(const char *driver_version)
{
	/*
	 * R535 from 535.43.02 to 535.98 added a field to the entries of the
	 * _v3 process calls without a new version (32 bytes, not 24);
	 * 535.104.05 went back to 24.
	 */
	if (!driver_version)
		return false;
	const char *p = driver_version, *end = p + strlen(p);
	uint64_t major, minor;
	if (!parse_decimal(&p, end, UINT32_MAX, &major) || *p++ != '.' || !parse_decimal(&p, end, UINT32_MAX, &minor))
		return false;
	return major == 535 && minor >= 43 && minor <= 98;
}
