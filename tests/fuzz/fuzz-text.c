/*
 * libFuzzer harness: UTF-8 repair and the terminal sanitizer, checking what
 * they promise: repaired text is valid UTF-8, sanitized text holds no
 * control character and no invalid UTF-8, nor does a command line made of
 * the bytes' words; the SIZE and DURATION
 * arguments and --device's GPU ids: what parses is in range; sizes and
 * durations print as one word; a GPU's table name fits its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "model/model.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_valid(const char *s, int allow_controls)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_sequence_length(p + i, n - i, &cp);
		if (len == 0)
			abort();
		if (!allow_controls && (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)))
			abort();
		i += len;
	}
}

/* The bytes as a command's words (split at NULs): one line, terminal-safe, as ps -l shows it. */
static void check_command(const uint8_t *data, size_t size)
{
	char *block = malloc(size + 1);
	const char **argv = malloc((size + 2) * sizeof(*argv));
	size_t argc = 0;
	if (!block || !argv) {
		free(block);
		free((void *)argv);
		return;
	}
	memcpy(block, data, size);
	block[size] = '\0';
	for (size_t at = 0; at <= size; at += strlen(block + at) + 1)
		argv[argc++] = block + at;
	argv[argc] = NULL;
	char *line = command_text(argv, strv_count(argv));
	if (line) {
		check_valid(line, 0);
		if (argc > 1 && !strchr(line, ' '))
			abort();
	}
	free(line);
	free((void *)argv);
	free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	char *repaired = utf8_repair(s);
	if (repaired) {
		check_valid(repaired, 1);
		free(repaired);
	}
	char *out = malloc(size + 1);
	if (out) {
		size_t width = sanitize_for_terminal(s, out, size + 1);
		check_valid(out, 0);
		if (width > strlen(out))
			abort();
		free(out);
	}
	struct size_arg size_arg;
	char word[SIZE_TEXT_MAX > DURATION_TEXT_MAX ? SIZE_TEXT_MAX : DURATION_TEXT_MAX];
	if (parse_size(s, &size_arg) && size_arg.is_percent && !(size_arg.percent >= 0 && size_arg.percent <= 100))
		abort();
	if (parse_size(s, &size_arg) && !size_arg.is_percent && strchr(format_size(size_arg.bytes, false, word), ' '))
		abort();
	uint64_t us;
	if (parse_duration(s, &us) && (us < 1000 || us > DURATION_MAX_US || us % 1000))
		abort();
	if (parse_duration(s, &us) && strchr(format_duration(us, word), ' '))
		abort();
	unsigned index, gi, ci;
	if (parse_gpu_index(s, size, &index, &gi, &ci) != 0 && (size == 0 || s[0] < '0' || s[0] > '9'))
		abort();
	char name[64];
	const char *shown = gpu_product_name(s, name, sizeof(name));
	if (shown != s && strlen(shown) >= sizeof(name))
		abort();
	free(s);
	check_command(data, size);
	/* Python's bare JSON words: the copy stays within 4/3 of the text, NUL-terminated where it says. */
	size_t python_len = 0;
	char *python = json_python_words((const char *)data, size, &python_len);
	if (python && (python_len > size + size / 3 + 1 || strlen(python) > python_len))
		abort();
	free(python);
	return 0;
}
