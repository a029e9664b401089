/*
 * safetensors headers (the safetensors repository's README): a u64 N, N bytes
 * of JSON naming each tensor's dtype, shape and data offsets, then the data.
 * N is checked against the file and the reference reader's bound before a
 * byte of the header is read; each tensor's offsets against the data's size
 * and its shape. And model.safetensors.index.json, which names the shards.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/model.h"

#define SAFETENSORS_MAX_DIMS 16
#define JSON_MAX_INTEGER 9007199254740992.0 /* 2^53: past it a double is not an exact integer */

static bool json_integer(const cJSON *item, uint64_t *ret)
{
	if (!cJSON_IsNumber(item))
		return false;
	double d = item->valuedouble;
	if (!(d >= 0 && d <= JSON_MAX_INTEGER) || d != (double)(uint64_t)d)
		return false;
	*ret = (uint64_t)d;
	return true;
}

/* A tensor's bytes in the data section, kept to check that together they tile it. */
struct range {
	uint64_t begin, end;
	const char *name;
};

static int compare_ranges(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * The format's rule (the reference reader's validate()): the tensors' data
 * tile the data section exactly, no gap and no overlap, so that every byte
 * is counted once and the file's size is the header's and the data's.
 */
static int check_tiling(const struct reader *r, struct range *ranges, size_t n, uint64_t data_size,
			struct model_error *e)
{
	uint64_t at = 0;
	char name[72];
	/* Writers lay the data out in the header's order: sorted already, most often. */
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = compare_ranges(&ranges[i - 1], &ranges[i]) <= 0;
	if (!sorted)
		qsort(ranges, n, sizeof(*ranges), compare_ranges);
	for (size_t i = 0; i < n; i++) {
		if (ranges[i].begin != at) {
			printable_name(ranges[i].name, name, sizeof(name));
			return model_fail(e, -EINVAL, "%s: tensor '%s' begins at byte %" PRIu64 " of the data, not %"
					  PRIu64 " where the one before it ends (%s): the file is broken or hostile",
					  r->name, name, ranges[i].begin, at,
					  ranges[i].begin < at ? "they overlap" : "a gap");
		}
		at = ranges[i].end;
	}
	if (at != data_size)
		return model_fail(e, -EINVAL, "%s: the tensors' data ends at byte %" PRIu64 " of a %" PRIu64
				  "-byte data section: the file is broken or hostile", r->name, at, data_size);
	return 0;
}

/*
 * The checks of a tensor whose entry was read (by either path below):
 * its data inside the data section and as long as its shape says; then
 * summed into b, its range kept for the tiling check. name is
 * NUL-terminated (len its length), as is dtype_name.
 */
static int add_tensor(const struct reader *r, const char *name, size_t len, const char *dtype_name,
		      enum hmn_dtype type, const uint64_t *dims, size_t n, uint64_t begin, uint64_t end,
		      uint64_t data_size, struct model_build *b, struct range *range, struct model_error *e)
{
	uint64_t bytes;
	if (end > data_size)
		return model_fail(e, -EINVAL, "%s: tensor '%s' ends at byte %" PRIu64 " of a %" PRIu64
				  "-byte data section: the file is truncated or hostile", r->name, SHOWN(name), end,
				  data_size);
	if (hmn_tensor_bytes(type, dims, n, &bytes) < 0 || bytes != end - begin)
		return model_fail(e, -EINVAL, "%s: tensor '%s' has %" PRIu64 " byte%s of data, not what its"
				  " shape in %s takes", r->name, SHOWN(name), end - begin,
				  end - begin == 1 ? "" : "s", dtype_name);
	*range = (struct range){ begin, end, name };
	int ret = model_build_tensor(b, name, len, type, dims, n, bytes);
	if (ret == -EFBIG)
		return model_fail(e, -EINVAL, "%s: more than %u tensors", r->name, MODEL_MAX_TENSORS);
	return ret < 0 ? model_fail(e, ret, "%s: tensor '%s': %s", r->name, SHOWN(name), strerror(-ret)) : 0;
}

/* One entry of the header: checked, then summed into b. */
static int read_tensor(const struct reader *r, const cJSON *t, uint64_t data_size,
		       struct model_build *b, struct range *range, struct model_error *e)
{
	/* The name made printable only where a message shows it: a header holds thousands. */
	if (!cJSON_IsObject(t))
		return model_fail(e, -EINVAL, "%s: tensor '%s' is not an object", r->name, SHOWN(t->string));
	const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(t, "dtype");
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
	const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
	enum hmn_dtype type;
	if (!cJSON_IsString(dtype) || !dtype_from_safetensors(dtype->valuestring, &type)) {
		char d[32];
		printable_name(cJSON_IsString(dtype) ? dtype->valuestring : "(none)", d, sizeof(d));
		return model_fail(e, -EINVAL, "%s: tensor '%s' has dtype '%s', which hmn does not know",
				  r->name, SHOWN(t->string), d);
	}
	if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > SAFETENSORS_MAX_DIMS)
		return model_fail(e, -EINVAL, "%s: tensor '%s' has no shape of at most %d dimensions",
				  r->name, SHOWN(t->string), SAFETENSORS_MAX_DIMS);
	uint64_t dims[SAFETENSORS_MAX_DIMS], begin, end;
	size_t n = 0;
	const cJSON *d;
	cJSON_ArrayForEach(d, shape) {
		if (!json_integer(d, &dims[n++]))
			return model_fail(e, -EINVAL, "%s: tensor '%s' has a shape that is not whole numbers",
					  r->name, SHOWN(t->string));
	}
	/* An end too big for a double to hold exactly is past any data section. */
	const cJSON *last = cJSON_IsArray(offsets) ? cJSON_GetArrayItem(offsets, 1) : NULL;
	if (cJSON_IsNumber(last) && last->valuedouble > JSON_MAX_INTEGER)
		return model_fail(e, -EINVAL, "%s: tensor '%s' ends past byte 2^53 of a %" PRIu64
				  "-byte data section: the file is truncated or hostile", r->name, SHOWN(t->string), data_size);
	if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
	    !json_integer(cJSON_GetArrayItem(offsets, 0), &begin) ||
	    !json_integer(cJSON_GetArrayItem(offsets, 1), &end) || begin > end)
		return model_fail(e, -EINVAL, "%s: tensor '%s' has no data_offsets [begin, end]", r->name,
				  SHOWN(t->string));
	return add_tensor(r, t->string, strlen(t->string), dtype->valuestring, type, dims, n, begin, end, data_size,
			  b, range, e);
}

/* How many structural characters text holds outside its strings, counting up to past max. */
static size_t json_structure(const char *text, size_t n, size_t max)
{
	size_t count = 0;
	bool in_string = false;
	for (size_t i = 0; i < n && count <= max; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[' || c == ',' || c == ':') {
			count++;
		}
	}
	return count;
}

/* __metadata__ is a map of strings (the reference reader refuses anything else). */
static int check_metadata(const struct reader *r, const cJSON *meta, struct model_error *e)
{
	const cJSON *v;
	if (!cJSON_IsObject(meta))
		return model_fail(e, -EINVAL, "%s: __metadata__ is not a map of strings", r->name);
	cJSON_ArrayForEach(v, meta) {
		if (!cJSON_IsString(v)) {
			char name[72];
			printable_name(v->string, name, sizeof(name));
			return model_fail(e, -EINVAL, "%s: __metadata__ '%s' is not a string", r->name, name);
		}
	}
	return 0;
}

/*
 * ---- The fast path ----
 *
 * A header as every writer writes it, read in one pass without cJSON's
 * tree: 91,991 tensors in DeepSeek-V3's 163 shards cost cJSON a node, a
 * malloc'd name and a strtod() for each key and number, and their frees
 * (80% of `hmn fit` on that folder). Only what cJSON reads to the same
 * values is taken: strings without escapes or control bytes, numbers of
 * 1 to 15 plain digits (below 2^53, exact as a double), each tensor's
 * object with dtype, shape (16 dimensions at most) and data_offsets once
 * each, __metadata__ a map of strings, nothing after the root. Anything
 * else (an escape, 1e3, an unknown key, a value of the wrong type,
 * trailing bytes, more than SAFETENSORS_MAX_STRUCTURE structural
 * characters) gives up before b is touched, and the header is read again
 * by the tree below: what it says of a hostile file is unchanged.
 */
#define FAST_GIVE_UP 1

struct fast_tensor {
	const char *name, *dtype;       /* into the header's text, NUL-terminated once the scan is whole */
	uint32_t name_len, dtype_len;
	uint32_t dims_at, n_dims;       /* into fast_scan.dims */
	uint64_t begin, end;
};

struct fast_scan {
	const char *p, *end;
	size_t structure, max_structure; /* { [ , : met, as json_structure() counts them; the bound */
	struct fast_tensor *tensors;
	size_t n_tensors, tensors_capacity;
	uint64_t *dims;
	size_t n_dims, dims_capacity;
};

static void fast_space(struct fast_scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

/* The structural character c next (after white space), counted. */
static bool fast_char(struct fast_scan *s, char c)
{
	fast_space(s);
	if (s->p >= s->end || *s->p != c)
		return false;
	s->p++;
	if (c != '}' && c != ']' && ++s->structure > s->max_structure)
		return false;
	return true;
}

static bool fast_string(struct fast_scan *s, const char **ret, uint32_t *ret_len)
{
	fast_space(s);
	if (s->p >= s->end || *s->p != '"')
		return false;
	/* Locals, not s->p: a char read may alias s, and the loop is most of a scan's time. */
	const char *from = s->p + 1, *p = from, *end = s->end;
	/*
	 * Eight bytes at a time while none is a quote, a backslash or a
	 * control byte (the words' bit tricks: a byte below k in x is a bit 7
	 * set in (x - k) & ~x); the rest, and the word that holds one, below.
	 */
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		uint64_t quote = x ^ (ones * '"'), slash = x ^ (ones * '\\');
		if (((x - ones * 0x20) | (quote - ones) | (slash - ones)) & ~x & highs)
			break;
		p += 8;
	}
	while (p < end && *p != '"') {
		if (*p == '\\' || (unsigned char)*p < 0x20)
			return false;
		p++;
	}
	if (p >= end || p - from > UINT32_MAX)
		return false;
	*ret = from;
	*ret_len = (uint32_t)(p - from);
	s->p = p + 1;
	return true;
}

static bool fast_number(struct fast_scan *s, uint64_t *ret)
{
	fast_space(s);
	const char *start = s->p, *p = start, *end = s->end;
	uint64_t v = 0;
	while (p < end && *p >= '0' && *p <= '9' && p - start <= 15) {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	/* 16 digits may pass 2^53; a leading zero, a fraction or an exponent: the tree's to read */
	ptrdiff_t digits = p - start;
	if (!digits || digits > 15 || (digits > 1 && *start == '0') ||
	    (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
		return false;
	s->p = p;
	*ret = v;
	return true;
}

static bool fast_key_is(const char *key, uint32_t len, const char *name)
{
	return len == strlen(name) && !memcmp(key, name, len);
}

/* An array of whole numbers, at most max of them, appended to s->dims. */
static bool fast_numbers(struct fast_scan *s, size_t max, uint32_t *ret_n)
{
	uint32_t n = 0;
	if (!fast_char(s, '['))
		return false;
	fast_space(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		*ret_n = 0;
		return true;
	}
	do {
		if (n == max || array_reserve((void **)&s->dims, &s->dims_capacity, s->n_dims, sizeof(*s->dims)) < 0 ||
		    !fast_number(s, &s->dims[s->n_dims]))
			return false;
		s->n_dims++;
		n++;
	} while (fast_char(s, ','));
	*ret_n = n;
	return fast_char(s, ']');
}

static bool fast_tensor(struct fast_scan *s, const char *name, uint32_t name_len)
{
	struct fast_tensor t = { .name = name, .name_len = name_len, .dims_at = (uint32_t)s->n_dims };
	bool dtype = false, shape = false, offsets = false;
	if (s->n_dims > UINT32_MAX || !fast_char(s, '{'))
		return false;
	do {
		const char *key;
		uint32_t len, n;
		if (!fast_string(s, &key, &len) || !fast_char(s, ':'))
			return false;
		if (fast_key_is(key, len, "dtype") && !dtype) {
			dtype = fast_string(s, &t.dtype, &t.dtype_len);
			if (!dtype)
				return false;
		} else if (fast_key_is(key, len, "shape") && !shape) {
			t.dims_at = (uint32_t)s->n_dims;
			shape = fast_numbers(s, SAFETENSORS_MAX_DIMS, &t.n_dims);
			if (!shape)
				return false;
		} else if (fast_key_is(key, len, "data_offsets") && !offsets) {
			size_t at = s->n_dims;
			if (!fast_numbers(s, 2, &n) || n != 2)
				return false;
			t.begin = s->dims[at];
			t.end = s->dims[at + 1];
			s->n_dims = at; /* not dimensions */
			offsets = true;
		} else {
			return false;
		}
	} while (fast_char(s, ','));
	if (!dtype || !shape || !offsets || !fast_char(s, '}'))
		return false;
	if (array_reserve((void **)&s->tensors, &s->tensors_capacity, s->n_tensors, sizeof(*s->tensors)) < 0)
		return false;
	s->tensors[s->n_tensors++] = t;
	return true;
}

/* __metadata__: a map of strings, as check_metadata() asks. */
static bool fast_metadata(struct fast_scan *s)
{
	const char *text;
	uint32_t len;
	if (!fast_char(s, '{'))
		return false;
	fast_space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	do {
		if (!fast_string(s, &text, &len) || !fast_char(s, ':') || !fast_string(s, &text, &len))
			return false;
	} while (fast_char(s, ','));
	return fast_char(s, '}');
}

static bool fast_scan(struct fast_scan *s)
{
	if (!fast_char(s, '{'))
		return false;
	fast_space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
	} else {
		do {
			const char *key;
			uint32_t len;
			if (!fast_string(s, &key, &len) || !fast_char(s, ':'))
				return false;
			if (!(fast_key_is(key, len, "__metadata__") ? fast_metadata(s) : fast_tensor(s, key, len)))
				return false;
		} while (fast_char(s, ','));
		if (!fast_char(s, '}'))
			return false;
	}
	fast_space(s);
	return s->p == s->end;
}

/*
 * text (n bytes, writable: names are NUL-terminated in place) read by the
 * fast path into b: 0, an error, or FAST_GIVE_UP with b untouched.
 */
static int fast_read(const struct reader *r, char *text, size_t n, uint64_t data_size, struct model_build *b,
		     struct model_error *e)
{
	struct fast_scan s = { .p = text, .end = text + n, .max_structure = SAFETENSORS_MAX_STRUCTURE };
	struct range *ranges = NULL;
	int ret = FAST_GIVE_UP;

	if (!fast_scan(&s))
		goto out;
	ranges = malloc((s.n_tensors ? s.n_tensors : 1) * sizeof(*ranges));
	if (!ranges) {
		ret = -ENOMEM;
		goto out;
	}
	/* Past here, nothing gives up: the closing quotes become the strings' ends. */
	for (size_t i = 0; i < s.n_tensors; i++) {
		((char *)s.tensors[i].name)[s.tensors[i].name_len] = '\0';
		((char *)s.tensors[i].dtype)[s.tensors[i].dtype_len] = '\0';
	}
	ret = 0;
	/* A shard's tensors are of one or two types (fp8 weights, their f32 scales): the last two tried first. */
	const char *known[2] = { NULL, NULL };
	enum hmn_dtype known_type[2] = { HMN_DTYPE_NONE, HMN_DTYPE_NONE };
	for (size_t i = 0; i < s.n_tensors && ret >= 0; i++) {
		const struct fast_tensor *t = &s.tensors[i];
		enum hmn_dtype type;
		bool found = false;
		for (size_t k = 0; k < 2 && !found; k++)
			if (known[k] && !strcmp(known[k], t->dtype)) {
				type = known_type[k];
				found = true;
			}
		if (!found && !dtype_from_safetensors(t->dtype, &type)) {
			char d[32];
			printable_name(t->dtype, d, sizeof(d));
			ret = model_fail(e, -EINVAL, "%s: tensor '%s' has dtype '%s', which hmn does not know",
					 r->name, SHOWN(t->name), d);
		} else if (t->begin > t->end) {
			ret = model_fail(e, -EINVAL, "%s: tensor '%s' has no data_offsets [begin, end]", r->name,
					 SHOWN(t->name));
		} else {
			if (!found) {
				known[1] = known[0];
				known_type[1] = known_type[0];
				known[0] = t->dtype;
				known_type[0] = type;
			}
			ret = add_tensor(r, t->name, t->name_len, t->dtype, type, s.dims + t->dims_at, t->n_dims,
					 t->begin, t->end, data_size, b, &ranges[i], e);
		}
	}
	if (ret >= 0)
		ret = check_tiling(r, ranges, s.n_tensors, data_size, e);
out:
	free(ranges);
	free(s.tensors);
	free(s.dims);
	return ret;
}

int safetensors_read(const struct reader *r, struct model_build *b, struct model_error *e)
{
	uint8_t head[8];
	uint64_t n = 0;
	int ret;

	b->torch_order = true; /* shapes outermost first: a row's width is the last */

	if ((ret = model_fail_if_lfs_pointer(r, e)) < 0)
		return ret;
	if (r->size < 8)
		return model_fail(e, -EINVAL, "%s: not a safetensors file (%" PRIu64 " byte%s)", r->name, r->size,
				  r->size == 1 ? "" : "s");
	if ((ret = r->read_at(r->userdata, 0, head, 8)) < 0)
		return model_fail(e, ret, "%s: cannot read: %s", r->name, strerror(-ret));
	for (int i = 7; i >= 0; i--)
		n = n << 8 | head[i];
	if (n > SAFETENSORS_MAX_HEADER)
		return model_fail(e, -EFBIG, "%s: a safetensors header of %" PRIu64 " bytes (the format's"
				  " readers refuse more than %u)", r->name, n, SAFETENSORS_MAX_HEADER);
	if (n > r->size - 8)
		return model_fail(e, -EINVAL, "%s: truncated safetensors file: a header of %" PRIu64
				  " bytes in a file of %" PRIu64, r->name, n, r->size);
	char *text = malloc(n + 1);
	if (!text)
		return -ENOMEM;
	if ((ret = r->read_at(r->userdata, 8, text, n)) < 0) {
		free(text);
		return model_fail(e, ret, "%s: cannot read: %s", r->name, strerror(-ret));
	}
	text[n] = '\0';
	uint64_t data_size = r->size - 8 - n;
	if ((ret = fast_read(r, text, n, data_size, b, e)) != FAST_GIVE_UP) {
		free(text);
		return ret;
	}
	/* A header of 100 MB of [0,0,0,...] would cost cJSON gigabytes: refused before it is parsed. */
	if (json_structure(text, n, SAFETENSORS_MAX_STRUCTURE) > SAFETENSORS_MAX_STRUCTURE) {
		free(text);
		return model_fail(e, -EFBIG, "%s: a safetensors header of more than %u JSON values: the file is"
				  " hostile", r->name, SAFETENSORS_MAX_STRUCTURE);
	}
	cJSON *root = cJSON_ParseWithLength(text, n);
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s: not a safetensors file (its header is not a JSON object)",
				  r->name);
	}
	size_t entries = (size_t)cJSON_GetArraySize(root), n_ranges = 0;
	struct range *ranges = malloc((entries ? entries : 1) * sizeof(*ranges));
	const cJSON *t;
	ret = ranges ? 0 : -ENOMEM;
	cJSON_ArrayForEach(t, root) {
		if (ret < 0)
			break;
		if (!t->string)
			continue;
		if (!strcmp(t->string, "__metadata__"))
			ret = check_metadata(r, t, e);
		else if ((ret = read_tensor(r, t, data_size, b, &ranges[n_ranges], e)) >= 0)
			n_ranges++;
	}
	if (ret >= 0)
		ret = check_tiling(r, ranges, n_ranges, data_size, e);
	free(ranges);
	cJSON_Delete(root);
	return ret;
}

/* A shard's name as an index may give it: a plain file name ending .safetensors. */
static bool plain_shard_name(const char *s, size_t n)
{
	static const char ext[] = ".safetensors";
	if (n <= sizeof(ext) - 1 || n > 255 || memcmp(s + n - (sizeof(ext) - 1), ext, sizeof(ext) - 1) || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == '\\' || s[i] == ':' || (unsigned char)s[i] < 0x20)
			return false;
	return true;
}

/* A set of shard names, sorted, for a weight_map's entries to be looked up in; each with its number. */
struct name_set {
	struct shard_entry {
		const char *name;
		uint32_t number;        /* its place among the shards, in the order first met */
	} *entries;
	size_t count, capacity;
};

/* Where name is in the set, or where it would go: the first of names not less than it. */
/* strcmp()'s order, for a name of len bytes (no NUL in them) that need not end in a NUL. */
static int compare_name(const char *entry, const char *name, size_t len)
{
	int c = strncmp(entry, name, len);
	return c ? c : entry[len] != '\0';
}

static size_t name_set_find(const struct name_set *set, const char *name, size_t len, bool *ret_found)
{
	size_t lo = 0, hi = set->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = compare_name(set->entries[mid].name, name, len);
		if (c == 0) {
			*ret_found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_found = false;
	return lo;
}

static int name_set_insert(struct name_set *set, size_t at, const char *name, uint32_t number)
{
	int r = array_reserve((void **)&set->entries, &set->capacity, set->count, sizeof(*set->entries));
	if (r < 0)
		return r;
	memmove(set->entries + at + 1, set->entries + at, (set->count - at) * sizeof(*set->entries));
	set->entries[at] = (struct shard_entry){ name, number };
	set->count++;
	return 0;
}

/*
 * metadata.total_size, into ix: absent (no metadata, or no total_size in
 * it), or a whole number of bytes from 1 to MODEL_MAX_TOTAL_SIZE, or what
 * is wrong with it, said only where it is needed (shards to price from it).
 */
static void read_total_size(const cJSON *root, struct safetensors_index *ix)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
	const cJSON *total = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "total_size") : NULL;
	uint64_t v;
	if (!total || cJSON_IsNull(total)) {
		ix->total = INDEX_TOTAL_ABSENT;
		return;
	}
	ix->total = INDEX_TOTAL_INVALID;
	if (cJSON_IsString(total)) {
		char shown[40];
		printable_name(total->valuestring, shown, sizeof(shown));
		snprintf(ix->total_problem, sizeof(ix->total_problem), "the string \"%s\" is not a number", shown);
	} else if (!cJSON_IsNumber(total)) {
		snprintf(ix->total_problem, sizeof(ix->total_problem), "%s is not a number",
			 cJSON_IsBool(total) ? "a boolean" : cJSON_IsArray(total) ? "an array" : "an object");
	} else if (total->valuedouble > (double)MODEL_MAX_TOTAL_SIZE) {
		snprintf(ix->total_problem, sizeof(ix->total_problem), "%.17g is more than %" PRIu64
			 " bytes (a pebibyte)", total->valuedouble, (uint64_t)MODEL_MAX_TOTAL_SIZE);
	} else if (!json_integer(total, &v) || v == 0) {
		snprintf(ix->total_problem, sizeof(ix->total_problem), "%.17g is not a whole number of bytes of 1 or"
			 " more", total->valuedouble);
	} else {
		ix->total = INDEX_TOTAL_VALID;
		ix->total_size = v;
	}
}

/* One weight_map entry's tensor name, kept with its shard's number. */
static int keep_tensor(struct safetensors_index *ix, const char *name, size_t name_len, uint32_t shard)
{
	size_t len = name_len + 1;
	if (ix->names_len + len > ix->names_capacity) {
		size_t cap = ix->names_capacity ? ix->names_capacity : 4096;
		while (cap < ix->names_len + len)
			cap *= 2;
		char *p = realloc(ix->tensor_names, cap);
		if (!p)
			return -ENOMEM;
		ix->tensor_names = p;
		ix->names_capacity = cap;
	}
	int r = array_reserve((void **)&ix->tensor_shard, &ix->shard_capacity, ix->n_tensors,
			      sizeof(*ix->tensor_shard));
	if (r < 0)
		return r;
	memcpy(ix->tensor_names + ix->names_len, name, name_len);
	ix->tensor_names[ix->names_len + name_len] = '\0';
	ix->names_len += len;
	ix->tensor_shard[ix->n_tensors++] = shard;
	return 0;
}

void safetensors_index_clear(struct safetensors_index *ix)
{
	for (size_t i = 0; i < ix->n_shards; i++)
		free(ix->shards[i]);
	free(ix->shards);
	free(ix->tensor_names);
	free(ix->tensor_shard);
	*ix = (struct safetensors_index){ 0 };
}

/* len bytes of s, NUL-terminated, malloc'd (strndup() is POSIX: not on Windows). */
static char *copy_name(const char *s, size_t len)
{
	char *copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

/* A weight_map as it is read, entry by entry, by either path below. */
struct index_walk {
	const char *path;
	struct safetensors_index ix;
	struct name_set seen;
	size_t shards_capacity;
	const char *last;               /* the shard of the entry before, len bytes */
	size_t last_len;
	uint32_t last_number;
};

static void index_walk_clear(struct index_walk *w)
{
	free(w->seen.entries);
	safetensors_index_clear(&w->ix);
	*w = (struct index_walk){ .path = w->path };
}

/*
 * One weight_map entry: tensor's name (tensor_len bytes) in the shard
 * named shard (shard_len bytes, no NUL in either; neither need end in one).
 */
static int index_entry(struct index_walk *w, const char *tensor, size_t tensor_len, const char *shard,
		       size_t shard_len, struct model_error *e)
{
	struct safetensors_index *ix = &w->ix;
	bool same = w->last && w->last_len == shard_len && !memcmp(w->last, shard, shard_len);
	if (!same && !plain_shard_name(shard, shard_len)) {
		char name[72];
		char *copy = copy_name(shard, shard_len);
		if (!copy)
			return -ENOMEM;
		printable_name(copy, name, sizeof(name));
		free(copy);
		return model_fail(e, -EINVAL, "%s names '%s', not a .safetensors file beside it", w->path, name);
	}
	if (ix->n_tensors >= MODEL_MAX_TENSORS)
		return model_fail(e, -EINVAL, "%s names more than %u tensors", w->path, MODEL_MAX_TENSORS);
	/*
	 * Shards come in runs: the one met last is tried first, then a
	 * binary search. An index whose millions of entries cycle through
	 * 4096 shards must not cost a scan of every shard seen for each
	 * (8 s of strcmp() for 60 MB).
	 */
	if (!same) {
		bool known;
		size_t at = name_set_find(&w->seen, shard, shard_len, &known);
		if (!known) {
			if (w->seen.count >= MODEL_MAX_FILES)
				return model_fail(e, -EINVAL, "%s names more than %u files", w->path, MODEL_MAX_FILES);
			char *copy = copy_name(shard, shard_len);
			if (!copy || array_reserve((void **)&ix->shards, &w->shards_capacity, ix->n_shards,
						   sizeof(*ix->shards)) < 0 ||
			    name_set_insert(&w->seen, at, copy, (uint32_t)ix->n_shards) < 0) {
				free(copy);
				return -ENOMEM;
			}
			ix->shards[ix->n_shards++] = copy;
			w->last_number = (uint32_t)ix->n_shards - 1;
		} else {
			w->last_number = w->seen.entries[at].number;
		}
		w->last = shard;
		w->last_len = shard_len;
	}
	return keep_tensor(ix, tensor, tensor_len, w->last_number);
}

/*
 * The fast path (as for a header, above): an index as transformers
 * writes it, a metadata map of strings and plain numbers (total_size one
 * of them, 1 or more) and a weight_map of strings, each key once, read in
 * one pass without cJSON's tree of 91,991 entries for DeepSeek-V3. Any
 * other shape, and any entry the walk refuses, gives up (w cleared): the
 * tree reads it and says what is wrong.
 */
static int index_fast(struct index_walk *w, const char *text, size_t len)
{
	struct fast_scan s = { .p = text, .end = text + len, .max_structure = SIZE_MAX };
	bool metadata = false, map = false, total = false;
	struct model_error ignored = { NULL, 0 };
	const char *key, *value;
	uint32_t key_len, value_len;
	int r;

	w->ix.total = INDEX_TOTAL_ABSENT;
	if (!fast_char(&s, '{'))
		return FAST_GIVE_UP;
	do {
		if (!fast_string(&s, &key, &key_len) || !fast_char(&s, ':') || !fast_char(&s, '{'))
			return FAST_GIVE_UP;
		bool is_map = fast_key_is(key, key_len, "weight_map");
		if (is_map ? map : !fast_key_is(key, key_len, "metadata") || metadata)
			return FAST_GIVE_UP;
		*(is_map ? &map : &metadata) = true;
		fast_space(&s);
		if (s.p < s.end && *s.p == '}') {
			s.p++;
			continue;
		}
		do {
			if (!fast_string(&s, &key, &key_len) || !fast_char(&s, ':'))
				return FAST_GIVE_UP;
			if (is_map) {
				if (!fast_string(&s, &value, &value_len))
					return FAST_GIVE_UP;
				if ((r = index_entry(w, key, key_len, value, value_len, &ignored)) < 0)
					return r == -ENOMEM ? r : FAST_GIVE_UP;
				continue;
			}
			fast_space(&s);
			if (s.p < s.end && *s.p == '"') {
				if (fast_key_is(key, key_len, "total_size") || !fast_string(&s, &value, &value_len))
					return FAST_GIVE_UP;
			} else {
				uint64_t v;
				if (!fast_number(&s, &v))
					return FAST_GIVE_UP;
				if (fast_key_is(key, key_len, "total_size")) {
					/* 15 digits at most: under MODEL_MAX_TOTAL_SIZE */
					if (total || v == 0)
						return FAST_GIVE_UP;
					total = true;
					w->ix.total = INDEX_TOTAL_VALID;
					w->ix.total_size = v;
				}
			}
		} while (fast_char(&s, ','));
		if (!fast_char(&s, '}'))
			return FAST_GIVE_UP;
	} while (fast_char(&s, ','));
	if (!fast_char(&s, '}') || !map || !w->ix.n_shards)
		return FAST_GIVE_UP;
	fast_space(&s);
	return s.p == s.end ? 0 : FAST_GIVE_UP;
}

int safetensors_index_read(const char *path, const char *text, size_t len, struct safetensors_index *ret,
			   struct model_error *e)
{
	struct index_walk w = { .path = path };
	int ret_code = index_fast(&w, text, len);
	if (ret_code == 0) {
		free(w.seen.entries);
		*ret = w.ix;
		return 0;
	}
	index_walk_clear(&w);
	if (ret_code < 0)
		return ret_code;

	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
	if (!cJSON_IsObject(map)) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s has no weight_map object", path);
	}
	ret_code = 0;
	read_total_size(root, &w.ix);
	const cJSON *entry;
	cJSON_ArrayForEach(entry, map) {
		if (!cJSON_IsString(entry)) {
			ret_code = model_fail(e, -EINVAL, "%s names '%s', not a .safetensors file beside it", path,
					      "(not a string)");
			break;
		}
		const char *tensor = entry->string ? entry->string : "";
		if ((ret_code = index_entry(&w, tensor, strlen(tensor), entry->valuestring, strlen(entry->valuestring),
					    e)) < 0)
			break;
	}
	if (ret_code >= 0 && !w.ix.n_shards)
		ret_code = model_fail(e, -EINVAL, "%s names no shard", path);
	cJSON_Delete(root);
	if (ret_code < 0) {
		index_walk_clear(&w);
		return ret_code;
	}
	free(w.seen.entries);
	*ret = w.ix;
	return 0;
}
