/*
 * The text of /proc/PID/fdinfo/FD for a DRM file descriptor, read with the
 * kernel's contract (Documentation/gpu/drm-usage-stats.rst):
 *
 *     drm-driver:        amdgpu
 *     drm-pdev:          0000:08:00.0
 *     drm-client-id:     217
 *     drm-resident-vram: 2068 KiB        (drm-memory-vram: the deprecated name)
 *     drm-engine-gfx:    107322799 ns
 *
 * A value is bytes, or KiB or MiB after a space, and the unit can change from
 * line to line and from one read to the next. A line that breaks the
 * contract (no value, an unknown unit, a number that overflows) is skipped:
 * one bad line never makes the others wrong. Pure: no I/O, so the unit
 * tests and the fuzzer reach all of it.
 */
#include <errno.h>
#include <string.h>

#include "gpu/drm/drm-parse.h"
#include "hmn.h"
#include "util/number.h"

/* What a memory region is to hmn, by the names amdgpu, i915 and xe give them. */
enum region_kind { REGION_OTHER, REGION_LOCAL, REGION_SHARED };

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool equals(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/*
 * Device-local memory: amdgpu "vram", i915 "local0".., xe "vram0"... System
 * memory the GPU maps: amdgpu "gtt", i915 "system0", xe "gtt" and "system".
 * Stolen memory, amdgpu's "cpu" (not mapped by the GPU) and anything new
 * are left out rather than guessed at.
 */
static enum region_kind region_kind(const char *name, size_t n)
{
	if (starts_with(name, n, "vram") || starts_with(name, n, "local"))
		return REGION_LOCAL;
	if (equals(name, n, "gtt") || starts_with(name, n, "system"))
		return REGION_SHARED;
	return REGION_OTHER;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "2068 KiB" → bytes. false for an empty value, a non-digit, an unknown
 * unit, trailing text, or a figure that does not fit in 64 bits.
 */
bool drm_parse_size(const char *p, size_t n, uint64_t *ret_bytes)
{
	size_t i = 0;
	uint64_t v = 0, scale = 1;

	while (i < n && is_blank(p[i]))
		i++;
	const char *q = p + i;
	if (!parse_decimal(&q, p + n, UINT64_MAX, &v))
		return false;
	i = (size_t)(q - p);
	while (i < n && is_blank(p[i]))
		i++;
	size_t unit = i;
	while (i < n && !is_blank(p[i]))
		i++;
	if (equals(p + unit, i - unit, "KiB"))
		scale = 1024;
	else if (equals(p + unit, i - unit, "MiB"))
		scale = 1024 * 1024;
	else if (i != unit)
		return false;
	while (i < n && is_blank(p[i]))
		i++;
	if (i != n || v > UINT64_MAX / scale)
		return false;
	*ret_bytes = v * scale;
	return true;
}

/* A plain unsigned integer field ("217"); false otherwise. */
static bool parse_uint(const char *p, size_t n, uint64_t *ret)
{
	uint64_t v;
	/* A size without a unit is a plain integer. */
	for (size_t i = 0; i < n; i++)
		if (!is_blank(p[i]) && (p[i] < '0' || p[i] > '9'))
			return false;
	if (!drm_parse_size(p, n, &v))
		return false;
	*ret = v;
	return true;
}

/* Engine busy time ("107322799 ns") or cycles ("28257900"): was it used at all? */
static bool engine_used(const char *p, size_t n)
{
	while (n > 0 && is_blank(p[n - 1]))
		n--;
	if (n >= 3 && memcmp(p + n - 3, " ns", 3) == 0)
		n -= 3;
	uint64_t v;
	return parse_uint(p, n, &v) && v > 0;
}

/* The engines that make a client compute (amdgpu/i915 "compute", xe "ccs") or graphics. */
static unsigned engine_type(const char *name, size_t n)
{
	if (equals(name, n, "compute") || equals(name, n, "ccs"))
		return HMN_PROCESS_COMPUTE;
	if (equals(name, n, "gfx") || equals(name, n, "render") || equals(name, n, "rcs"))
		return HMN_PROCESS_GRAPHICS;
	return 0;
}

static void copy_value(char *out, size_t size, const char *p, size_t n)
{
	while (n > 0 && is_blank(*p))
		p++, n--;
	while (n > 0 && is_blank(p[n - 1]))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	/* A NUL inside would cut the string short; a control byte has no place in an id. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

/* Per kind: the sums of the drm-resident-* lines and of the deprecated drm-memory-* ones. */
struct region_sums {
	uint64_t resident, memory;
	bool has_resident, has_memory;
};

static void add_region(struct region_sums *s, bool resident, uint64_t bytes)
{
	uint64_t *sum = resident ? &s->resident : &s->memory;
	*sum = *sum > UINT64_MAX - bytes ? UINT64_MAX : *sum + bytes;
	if (resident)
		s->has_resident = true;
	else
		s->has_memory = true;
}

/* resident when the kernel printed it; the older name otherwise; HMN_UNKNOWN when neither. */
static uint64_t region_total(const struct region_sums *s)
{
	if (s->has_resident)
		return s->resident;
	if (s->has_memory)
		return s->memory;
	return HMN_UNKNOWN;
}

static void parse_line(const char *key, size_t key_len, const char *value, size_t value_len,
		       struct drm_fdinfo *info, struct region_sums sums[3])
{
	uint64_t v;

	if (equals(key, key_len, "drm-driver")) {
		copy_value(info->driver, sizeof(info->driver), value, value_len);
	} else if (equals(key, key_len, "drm-pdev")) {
		copy_value(info->pdev, sizeof(info->pdev), value, value_len);
	} else if (equals(key, key_len, "drm-client-id")) {
		if (parse_uint(value, value_len, &v)) {
			info->client_id = v;
			info->has_client_id = true;
		}
	} else if (starts_with(key, key_len, "drm-resident-") || starts_with(key, key_len, "drm-memory-")) {
		bool resident = key[4] == 'r';
		size_t skip = resident ? strlen("drm-resident-") : strlen("drm-memory-");
		enum region_kind kind = region_kind(key + skip, key_len - skip);
		if (kind != REGION_OTHER && drm_parse_size(value, value_len, &v))
			add_region(&sums[kind], resident, v);
	} else if (starts_with(key, key_len, "drm-engine-") &&
		   !starts_with(key, key_len, "drm-engine-capacity-")) {
		size_t skip = strlen("drm-engine-");
		if (engine_used(value, value_len))
			info->engines |= engine_type(key + skip, key_len - skip);
	} else if (starts_with(key, key_len, "drm-cycles-")) {
		size_t skip = strlen("drm-cycles-");
		if (engine_used(value, value_len))
			info->engines |= engine_type(key + skip, key_len - skip);
	}
}

int drm_parse_fdinfo(const char *text, size_t len, struct drm_fdinfo *ret_info)
{
	struct drm_fdinfo info = { .local_bytes = HMN_UNKNOWN, .shared_bytes = HMN_UNKNOWN };
	struct region_sums sums[3] = { 0 };
	const char *end = text + len;

	for (const char *line = text; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		if (colon && starts_with(line, (size_t)(colon - line), "drm-"))
			parse_line(line, (size_t)(colon - line), colon + 1, (size_t)(eol - colon - 1),
				   &info, sums);
		line = eol + 1;
	}
	if (!info.driver[0])
		return -EINVAL; /* not a DRM file, or a kernel before fdinfo stats */
	info.local_bytes = region_total(&sums[REGION_LOCAL]);
	info.shared_bytes = region_total(&sums[REGION_SHARED]);
	*ret_info = info;
	return 0;
}
