/*
 * The JSON string writer against cJSON itself: for every input, the text we
 * write must parse (with cJSON) back to the UTF-8-repaired input, hold no
 * control character raw (C0, DEL, C1), and equal what cJSON prints for it
 * where cJSON escapes every control character itself (it leaves DEL and C1).
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "render.h"
#include "tap.h"

static char *written(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_write_string(f, s);
	fclose(f);
	return buf;
}

static void check(const char *input, const char *label)
{
	char *ours = written(input);
	char *valid = utf8_repair(input);
	cJSON *item = cJSON_CreateString(valid);
	char *theirs = cJSON_PrintUnformatted(item);
	cJSON *back = cJSON_Parse(ours);

	bool raw_control = false, del_or_c1 = false;
	for (const unsigned char *p = (const unsigned char *)ours; *p; p++)
		raw_control |= *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
	for (const unsigned char *p = (const unsigned char *)valid; *p; p++)
		del_or_c1 |= *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
	ok(back && cJSON_IsString(back) && !strcmp(back->valuestring, valid) && !raw_control &&
	   (del_or_c1 || !strcmp(ours, theirs)),
	   "%s: round-trips, no control character raw, as cJSON writes it", label);
	if (strcmp(ours, theirs))
		printf("#   ours %s\n#   cJSON %s\n", ours, theirs);
	cJSON_Delete(back);
	cJSON_Delete(item);
	free(theirs);
	free(valid);
	free(ours);
}

int main(void)
{
	check("python3", "plain ASCII");
	check("", "empty");
	check("with \"quotes\" and \\backslash", "quotes and backslash");
	check("evil\x1b[31m\nname", "escape sequence and newline");
	check("tab\there\r\b\f\x01\x1f\x7f", "every kind of control byte");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "valid UTF-8");
	check("bad\xff\xfe\xc0\xaf\xed\xa0\x80 end", "invalid UTF-8");
	check("/usr/bin/python3.11", "a path");
	check("csi\xc2\x9b" "2J", "a C1 control");
	char *c1 = written("csi\xc2\x9b" "2J del\x7f");
	is_str(c1, "\"csi\\u009b2J del\\u007f\"", "C1 and DEL escaped as \\u009b, \\u007f (cJSON leaves them raw)");
	free(c1);

	char *s = written(NULL);
	is_str(s, "null", "NULL is null");
	free(s);
	return tap_done();
}
