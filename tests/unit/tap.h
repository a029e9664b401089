/* A few TAP helpers: `ok N - name` lines and a plan at the end. */
#ifndef HMN_TAP_H
#define HMN_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#ifdef __MINGW_PRINTF_FORMAT
#define TAP_PRINTF __attribute__((format(__MINGW_PRINTF_FORMAT, 4, 5)))
#else
#define TAP_PRINTF __attribute__((format(printf, 4, 5)))
#endif

static inline TAP_PRINTF void
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	char name[512];
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	/* A name holding a newline (a hostile input in it) would end the TAP line early. */
	for (const char *p = name; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stdout);
		else
			putchar((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
	}
	printf("\n");
	if (!pass) {
		printf("#   failed at %s:%d\n", file, line);
		tap_failed++;
	}
}

#define is_str(got, want, name)                                                        \
	do {                                                                           \
		const char *g_ = (got), *w_ = (want);                                  \
		int same_ = (g_ == NULL && w_ == NULL) || (g_ && w_ && !strcmp(g_, w_)); \
		ok(same_, "%s", name);                                                 \
		if (!same_)                                                            \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)",          \
			       w_ ? w_ : "(null)");                                    \
	} while (0)

#define is_u64(got, want, name)                                                        \
	do {                                                                           \
		uint64_t g_ = (got), w_ = (want);                                      \
		ok(g_ == w_, "%s", name);                                              \
		if (g_ != w_)                                                          \
			printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_, w_);     \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
