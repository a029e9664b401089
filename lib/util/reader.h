/*
 * Bytes read at 64-bit offsets, whatever holds them (lib/util/reader.c): a
 * file (os_file_open, on every OS) or bytes in memory (the tests' and
 * fuzzers'), so that the model readers are pure.
 */
#ifndef HMN_UTIL_READER_H
#define HMN_UTIL_READER_H

#include <stddef.h>
#include <stdint.h>

/* A file, or anything that answers like one. */
struct reader {
	/* Exactly len bytes at offset into buf (offset + len <= size): 0 or a negative errno. */
	int (*read_at)(void *userdata, uint64_t offset, void *buf, size_t len);
	uint64_t size;
	void *userdata;
	const char *name;   /* for messages: the path, or what the bytes are */
};

/* A reader over bytes in memory; past len, up to size, it reads zeros (a hole). */
struct memory_file {
	const uint8_t *data;
	size_t len;
};
void memory_reader(struct reader *r, struct memory_file *file, uint64_t size, const char *name);

#endif
