#include <stdlib.h>
#include <string.h>

#include "outbuf.h"

struct outbuf *outbuf_new(FILE *file)
{
	struct outbuf *o = malloc(sizeof(*o));
	if (o) {
		o->file = file;
		o->len = 0;
	}
	return o;
}

static void flush(struct outbuf *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->file);
	o->len = 0;
}

void outbuf_close(struct outbuf *o)
{
	if (!o)
		return;
	flush(o);
	free(o);
}

void outbuf_put(struct outbuf *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->buf)) {
		flush(o);
		if (n > sizeof(o->buf)) {
			fwrite(s, 1, n, o->file);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void outbuf_puts(struct outbuf *o, const char *s)
{
	outbuf_put(o, s, strlen(s));
}

void outbuf_put_u64(struct outbuf *o, uint64_t value)
{
	char digits[24];
	size_t n = 0;

	do
		digits[sizeof(digits) - ++n] = (char)('0' + value % 10);
	while ((value /= 10) > 0);
	outbuf_put(o, digits + sizeof(digits) - n, n);
}
