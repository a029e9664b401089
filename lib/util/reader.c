/* Bytes read at offsets: bytes in memory as a file (a real file is the OS's: os_file_open). */
#include <string.h>

#include "util/reader.h"

static int memory_read_at(void *userdata, uint64_t offset, void *buf, size_t len)
{
	const struct memory_file *f = userdata;
	size_t have = offset < f->len ? f->len - (size_t)offset : 0;
	size_t n = have < len ? have : len;
	if (n)
		memcpy(buf, f->data + offset, n);
	memset((uint8_t *)buf + n, 0, len - n);
	return 0;
}

void memory_reader(struct reader *r, struct memory_file *file, uint64_t size, const char *name)
{
	r->read_at = memory_read_at;
	r->size = size < file->len ? file->len : size;
	r->userdata = file;
	r->name = name;
}
