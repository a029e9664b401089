/* PCI ids, as the GPU sources meet them (gpu/pci.c): pure, for every source and the tests. */
#ifndef HMN_GPU_PCI_H
#define HMN_GPU_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Normalises an NVML bus id ("00000000:01:00.0") to sysfs form ("0000:01:00.0"). */
void normalize_pci_bus_id(const char *in, char *out, size_t size);
/* The device's name in a pci.ids text; false when absent. */
bool pci_ids_name(const char *text, size_t len, unsigned vendor, unsigned device, char *out,
		  size_t size);

#endif
