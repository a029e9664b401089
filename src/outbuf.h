/*
 * A 64 KiB output buffer handed to stdio in large pieces, shared by the
 * JSON, CSV and Prometheus renderers: a stdio call per key and value cost
 * more than building 10,000 rows.
 */
#ifndef HMN_OUTBUF_H
#define HMN_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct outbuf {
	FILE *file;
	size_t len;
	char buf[65536];
};

/* A buffer for file, malloc'd (it is too large for a stack); NULL on ENOMEM. */
struct outbuf *outbuf_new(FILE *file);
/* Flushes what is left and frees it. */
void outbuf_close(struct outbuf *o);
void outbuf_put(struct outbuf *o, const char *s, size_t n);
void outbuf_puts(struct outbuf *o, const char *s);
/* A decimal integer. */
void outbuf_put_u64(struct outbuf *o, uint64_t value);

#define OUTBUF_LITERAL(o, text) outbuf_put(o, text, sizeof(text) - 1)

#endif
