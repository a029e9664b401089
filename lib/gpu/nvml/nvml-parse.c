/* What the NVML source decides from the driver's words alone: pure, unit-tested anywhere. */
#include <stdio.h>

#include "gpu/nvml/nvml.h"

bool nvml_v3_entries_are_32_bytes(const char *driver_version)
{
	unsigned major, minor;

	/*
	 * R535 from 535.43.02 to 535.98 added a field to the entries of the
	 * _v3 process calls without a new version (32 bytes, not 24);
	 * 535.104.05 went back to 24.
	 */
	if (!driver_version || sscanf(driver_version, "%u.%u", &major, &minor) != 2)
		return false;
	return major == 535 && minor >= 43 && minor <= 98;
}
