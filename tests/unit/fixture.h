/* Reading a recorded fixture in a unit test: $TESTS_DIR/fixtures/SUBDIR/NAME, whole. */
#ifndef HMN_FIXTURE_H
#define HMN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#define FIXTURE_MAX (1 << 20)

/* The file's bytes, NUL-terminated, malloc'd; exits 99 (a hard error) when it cannot be read. */
static inline char *slurp_fixture(const char *subdir, const char *name, size_t *ret_len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/fixtures/%s/%s", getenv("TESTS_DIR"), subdir, name);
	FILE *f = fopen(path, "rb");
	char *buf = f ? malloc(FIXTURE_MAX) : NULL;
	if (!buf) {
		printf("# cannot read %s\n", path);
		exit(99);
	}
	*ret_len = fread(buf, 1, FIXTURE_MAX - 1, f);
	buf[*ret_len] = '\0';
	fclose(f);
	return buf;
}

#endif
