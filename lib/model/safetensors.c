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
	if (n)
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
	uint64_t dims[SAFETENSORS_MAX_DIMS], begin, end, bytes;
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
	if (end > data_size)
		return model_fail(e, -EINVAL, "%s: tensor '%s' ends at byte %" PRIu64 " of a %" PRIu64
				  "-byte data section: the file is truncated or hostile", r->name, SHOWN(t->string), end,
				  data_size);
	if (hmn_tensor_bytes(type, dims, n, &bytes) < 0 || bytes != end - begin)
		return model_fail(e, -EINVAL, "%s: tensor '%s' has %" PRIu64 " byte%s of data, not what its"
				  " shape in %s takes", r->name, SHOWN(t->string), end - begin,
				  end - begin == 1 ? "" : "s", dtype->valuestring);
	*range = (struct range){ begin, end, t->string };
	int ret = model_build_tensor(b, t->string, strlen(t->string), type, dims, n, bytes);
	if (ret == -EFBIG)
		return model_fail(e, -EINVAL, "%s: more than %u tensors", r->name, MODEL_MAX_TENSORS);
	return ret < 0 ? model_fail(e, ret, "%s: tensor '%s': %s", r->name, SHOWN(t->string), strerror(-ret)) : 0;
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
	uint64_t data_size = r->size - 8 - n;
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
static bool plain_shard_name(const char *s)
{
	size_t n = strlen(s);
	static const char ext[] = ".safetensors";
	if (n <= sizeof(ext) - 1 || n > 255 || strcmp(s + n - (sizeof(ext) - 1), ext) || s[0] == '.')
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
static size_t name_set_find(const struct name_set *set, const char *name, bool *ret_found)
{
	size_t lo = 0, hi = set->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(set->entries[mid].name, name);
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
static int keep_tensor(struct safetensors_index *ix, const char *name, uint32_t shard)
{
	size_t len = strlen(name) + 1;
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
	memcpy(ix->tensor_names + ix->names_len, name, len);
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

int safetensors_index_read(const char *path, const char *text, size_t len, struct safetensors_index *ret,
			   struct model_error *e)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
	struct name_set seen = { NULL, 0, 0 };
	struct safetensors_index ix = { 0 };
	size_t shards_capacity = 0;
	const char *last = NULL;
	uint32_t last_number = 0;
	int ret_code = 0;

	if (!cJSON_IsObject(map)) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s has no weight_map object", path);
	}
	read_total_size(root, &ix);
	const cJSON *entry;
	cJSON_ArrayForEach(entry, map) {
		if (!cJSON_IsString(entry) || !plain_shard_name(entry->valuestring)) {
			char name[72];
			printable_name(cJSON_IsString(entry) ? entry->valuestring : "(not a string)", name,
				       sizeof(name));
			ret_code = model_fail(e, -EINVAL, "%s names '%s', not a .safetensors file beside it", path,
					      name);
			break;
		}
		if (ix.n_tensors >= MODEL_MAX_TENSORS) {
			ret_code = model_fail(e, -EINVAL, "%s names more than %u tensors", path, MODEL_MAX_TENSORS);
			break;
		}
		/*
		 * Shards come in runs: the one met last is tried first, then a
		 * binary search. An index whose millions of entries cycle through
		 * 4096 shards must not cost a scan of every shard seen for each
		 * (8 s of strcmp() for 60 MB).
		 */
		if (!last || strcmp(last, entry->valuestring)) {
			bool known;
			size_t at = name_set_find(&seen, entry->valuestring, &known);
			if (!known) {
				if (seen.count >= MODEL_MAX_FILES) {
					ret_code = model_fail(e, -EINVAL, "%s names more than %u files", path,
							      MODEL_MAX_FILES);
					break;
				}
				char *copy = strdup(entry->valuestring);
				if (!copy || (ret_code = array_reserve((void **)&ix.shards, &shards_capacity, ix.n_shards,
								       sizeof(*ix.shards))) < 0 ||
				    (ret_code = name_set_insert(&seen, at, copy, (uint32_t)ix.n_shards)) < 0) {
					free(copy);
					ret_code = -ENOMEM;
					break;
				}
				ix.shards[ix.n_shards++] = copy;
				last_number = (uint32_t)ix.n_shards - 1;
			} else {
				last_number = seen.entries[at].number;
			}
			last = entry->valuestring;
		}
		if ((ret_code = keep_tensor(&ix, entry->string ? entry->string : "", last_number)) < 0)
			break;
	}
	if (ret_code >= 0 && !ix.n_shards)
		ret_code = model_fail(e, -EINVAL, "%s names no shard", path);
	free(seen.entries);
	cJSON_Delete(root);
	if (ret_code < 0) {
		safetensors_index_clear(&ix);
		return ret_code;
	}
	*ret = ix;
	return 0;
}
