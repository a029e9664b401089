/*
 * The NVIDIA GPUs the system shows, whichever driver (if any) runs them: the
 * PCI functions under $HMN_SYSFS/bus/pci/devices of NVIDIA's vendor id whose
 * class is a display controller (VGA 0x0300 or 3D 0x0302; a GeForce's HDMI
 * audio function, 0x0403, is not one). They are there when the driver is not
 * loaded and when nvidia-drm made no card node: what tells a broken driver
 * from a machine without an NVIDIA GPU.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/os.h"
#include "util/number.h"

#define VENDOR_NVIDIA 0x10de

const char *os_sysfs_root(void)
{
	const char *root = os_trusted_getenv("HMN_SYSFS");
	return root && *root ? root : "/sys";
}

/* A sysfs attribute of the form 0x1234, as PCI's vendor and class are printed; false when it is not one. */
static bool read_hex_attr(int dir, const char *path, uint64_t *ret)
{
	char buf[32];
	ssize_t n = linux_read_head(dir, path, buf, sizeof(buf));
	if (n < 3 || buf[0] != '0' || (buf[1] != 'x' && buf[1] != 'X'))
		return false;
	const char *p = buf + 2, *end = buf + n;
	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	return parse_hex(&p, end, UINT32_MAX, ret) && p == end;
}

unsigned os_nvidia_gpus_shown(char *where, size_t size)
{
	char path[4096];
	unsigned n = 0;
	size_t used = 0;

	if (size)
		where[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/pci/devices", os_sysfs_root());
	int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
	if (!dir) {
		if (dir_fd >= 0)
			close(dir_fd);
		return 0;
	}
	for (struct dirent *e; (e = readdir(dir));) {
		uint64_t vendor, class_code;
		char attr[300];
		if (e->d_name[0] == '.' || strlen(e->d_name) > 64)
			continue;
		snprintf(attr, sizeof(attr), "%s/vendor", e->d_name);
		if (!read_hex_attr(dir_fd, attr, &vendor) || vendor != VENDOR_NVIDIA)
			continue;
		snprintf(attr, sizeof(attr), "%s/class", e->d_name);
		if (!read_hex_attr(dir_fd, attr, &class_code) ||
		    ((class_code >> 8) != 0x0300 && (class_code >> 8) != 0x0302))
			continue;
		n++;
		if (used < size)
			used += (size_t)snprintf(where + used, size - used, "%s%s", used ? ", " : "", e->d_name);
	}
	closedir(dir);
	if (used >= size && size > 4)
		memcpy(where + size - 4, "...", 4); /* many: the first named, and a sign of the rest */
	return n;
}
