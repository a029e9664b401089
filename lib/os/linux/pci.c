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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/os.h"

#define VENDOR_NVIDIA 0x10de

const char *os_sysfs_root(void)
{
	const char *root = os_trusted_getenv("HMN_SYSFS");
	return root && *root ? root : "/sys";
}

/*
 * Is this function one the host's NVIDIA driver should read? Not one bound
 * to vfio-pci or pci-stub (passed through to a virtual machine, whose
 * driver reads it), nor a virtual function (SR-IOV: its physical
 * function is the GPU).
 */
static bool hosts_driver_reads(int dir, const char *name)
{
	char path[300], target[256];
	snprintf(path, sizeof(path), "%s/physfn", name);
	if (faccessat(dir, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return false;
	snprintf(path, sizeof(path), "%s/driver", name);
	ssize_t n = readlinkat(dir, path, target, sizeof(target) - 1);
	if (n <= 0)
		return true; /* no driver bound: the one hmn is told to read is not loaded */
	target[n] = '\0';
	const char *driver = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	return strcmp(driver, "vfio-pci") != 0 && strcmp(driver, "pci-stub") != 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

#define FUNCTIONS_MAX 256

unsigned os_nvidia_gpus_shown(char *where, size_t size)
{
	char path[4096], (*names)[65] = NULL;
	unsigned n = 0;
	size_t used = 0;

	if (size)
		where[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/pci/devices", os_sysfs_root());
	int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
	if (!dir || !(names = calloc(FUNCTIONS_MAX, sizeof(*names)))) {
		if (dir)
			closedir(dir);
		else if (dir_fd >= 0)
			close(dir_fd);
		return 0;
	}
	for (struct dirent *e; (e = readdir(dir)) && n < FUNCTIONS_MAX;) {
		uint64_t vendor, class_code;
		char attr[300];
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(names[0]))
			continue;
		snprintf(attr, sizeof(attr), "%s/vendor", e->d_name);
		if (linux_read_u64(dir_fd, attr, &vendor) < 0 || vendor != VENDOR_NVIDIA)
			continue;
		snprintf(attr, sizeof(attr), "%s/class", e->d_name);
		if (linux_read_u64(dir_fd, attr, &class_code) < 0 ||
		    ((class_code >> 8) != 0x0300 && (class_code >> 8) != 0x0302) || !hosts_driver_reads(dir_fd, e->d_name))
			continue;
		memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
	}
	closedir(dir);
	/* In bus order, whatever order the directory lists them in. */
	qsort(names, n, sizeof(names[0]), compare_names);
	for (unsigned i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(where + used, size - used, "%s%s", i ? ", " : "", names[i]);
	if (used >= size && size > 4)
		memcpy(where + size - 4, "...", 4); /* many: the first named, and a sign of the rest */
	free(names);
	return n;
}
