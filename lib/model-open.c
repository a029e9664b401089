/*
 * hmn_model_open(): what a path names (a GGUF, split or not; a .safetensors
 * file; a folder of shards; a config.json alone), its files opened through
 * the OS layer and read by the pure readers, one file at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model.h"

#define GGUF_MAX_PARTS 256u

int name_list_add(struct name_list *l, const char *name, const char *suffix, size_t max)
{
	size_t len = strlen(name), k = strlen(suffix);
	if (len <= k || strcmp(name + len - k, suffix) || name[0] == '.')
		return 0;
	if (l->count >= max)
		return -E2BIG;
	int r = array_reserve((void **)&l->names, &l->capacity, l->count, sizeof(*l->names));
	if (r < 0)
		return r;
	if (!(l->names[l->count] = malloc(len + 1)))
		return -ENOMEM;
	memcpy(l->names[l->count++], name, len + 1);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void name_list_sort(struct name_list *l)
{
	if (l->count)
		qsort(l->names, l->count, sizeof(*l->names), compare_names);
}

void name_list_clear(struct name_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->names[i]);
	free(l->names);
	*l = (struct name_list){ 0 };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* dir/name, malloc'd. */
static char *join(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	char *p = malloc(d + n + 2);
	if (p) {
		memcpy(p, dir, d);
		p[d] = '/';
		memcpy(p + d + 1, name, n + 1);
	}
	return p;
}

/* path's last separator ('/', and '\\' on Windows), or NULL. */
static const char *last_separator(const char *path)
{
	const char *slash = strrchr(path, '/');
#ifdef _WIN32
	const char *back = strrchr(path, '\\');
	if (back && (!slash || back > slash))
		slash = back;
#endif
	return slash;
}

/* The folder path's file is in ("." for a bare name), malloc'd. */
static char *dirname_of(const char *path)
{
	const char *slash = last_separator(path);
	if (!slash)
		return strdup(".");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, path, n);
		p[n] = '\0';
	}
	return p;
}

static const char *basename_of(const char *path)
{
	const char *slash = last_separator(path);
	return slash ? slash + 1 : path;
}

static int open_failed(struct model_error *e, const char *path, int r)
{
	if (r == -ENOENT)
		return model_fail(e, r, "%s: no such file", path);
	if (r == -EISDIR)
		return model_fail(e, r, "%s: a folder where a file was expected", path);
	if (r == -EINVAL)
		return model_fail(e, r, "%s: not a regular file", path);
	return model_fail(e, r, "%s: %s", path, strerror(-r));
}

/* A whole small text file (config.json, the index), NUL-terminated, at most MODEL_MAX_TEXT. */
static int read_text(const char *path, char **ret_text, size_t *ret_len, struct model_error *e)
{
	struct model_reader r;
	int ret = os_file_open(path, &r);
	if (ret < 0)
		return open_failed(e, path, ret);
	if (r.size > MODEL_MAX_TEXT) {
		os_file_close(&r);
		return model_fail(e, -EFBIG, "%s: %llu bytes, more than the %u MiB a config may take", path,
				  (unsigned long long)r.size, MODEL_MAX_TEXT >> 20);
	}
	char *text = malloc((size_t)r.size + 1);
	if (!text) {
		os_file_close(&r);
		return -ENOMEM;
	}
	ret = r.size ? r.read_at(r.userdata, 0, text, (size_t)r.size) : 0;
	os_file_close(&r);
	if (ret < 0) {
		free(text);
		return model_fail(e, ret, "%s: cannot read: %s", path, strerror(-ret));
	}
	text[r.size] = '\0';
	*ret_text = text;
	*ret_len = (size_t)r.size;
	return 0;
}

static int open_gguf(const char *path, struct hmn_model **ret, struct model_error *e)
{
	size_t prefix;
	unsigned no, count = model_split_name(path, ".gguf", &prefix, &no);
	struct model_reader parts[GGUF_MAX_PARTS];
	char *names[GGUF_MAX_PARTS] = { NULL };
	size_t n = count ? count : 1, opened = 0;
	int r = 0;

	if (n > GGUF_MAX_PARTS)
		return model_fail(e, -EINVAL, "%s: a split GGUF of %zu parts (at most %u)", path, n, GGUF_MAX_PARTS);
	for (size_t i = 0; i < n; i++) {
		/* A split model is read from its first part, whichever part was named. */
		names[i] = count ? malloc(prefix + 21) : strdup(path);
		if (!names[i]) {
			r = -ENOMEM;
			break;
		}
		if (count) {
			memcpy(names[i], path, prefix);
			snprintf(names[i] + prefix, 21, "-%05zu-of-%05u.gguf", i + 1, count);
		}
		if ((r = os_file_open(names[i], &parts[i])) < 0) {
			if (count && r == -ENOENT)
				r = model_fail(e, r, "%s: part %zu of %u of this split GGUF is missing (%s)", path,
					       i + 1, count, names[i]);
			else
				r = open_failed(e, names[i], r);
			break;
		}
		opened++;
	}
	if (r >= 0)
		r = gguf_read(parts, n, ret, e);
	for (size_t i = 0; i < opened; i++)
		os_file_close(&parts[i]);
	if (r >= 0) {
		/* The path the caller gave, not the first part's. */
		(*ret)->path = arena_strdup((*ret)->arena, path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r;
}

struct folder {
	const char *dir;
	struct model_build *b;
	struct model_error *e;
};

static int read_shard(const char *name, void *data)
{
	struct folder *f = data;
	char *path = join(f->dir, name);
	struct model_reader r;
	int ret;
	if (!path)
		return -ENOMEM;
	if ((ret = os_file_open(path, &r)) < 0) {
		ret = open_failed(f->e, path, ret);
		free(path);
		return ret;
	}
	ret = safetensors_read(&r, f->b, f->e);
	os_file_close(&r);
	free(path);
	f->b->m->n_files++;
	return ret;
}

/*
 * Without an index, shards named model-0000N-of-0000M.safetensors are a
 * model only with all M of them (as the parts of a split GGUF are): a
 * missing one would price a fraction of the model as the whole.
 */
static int check_all_shards(const char *dir, const struct name_list *names, struct model_error *e)
{
	const char *checked = NULL; /* the set checked last: sorted, its other parts come next */
	size_t checked_prefix = 0;
	unsigned checked_count = 0;
	for (size_t i = 0; i < names->count; i++) {
		size_t prefix;
		unsigned no, count = model_split_name(names->names[i], ".safetensors", &prefix, &no);
		if (!count || (checked && count == checked_count && prefix == checked_prefix &&
			       !memcmp(checked, names->names[i], prefix)))
			continue;
		checked = names->names[i], checked_prefix = prefix, checked_count = count;
		for (unsigned part = 1; part <= count; part++) {
			char want[300];
			char *key = want;
			if (prefix >= sizeof(want) - 32)
				break;
			memcpy(want, names->names[i], prefix);
			snprintf(want + prefix, sizeof(want) - prefix, "-%05u-of-%05u.safetensors", part, count);
			if (!bsearch(&key, names->names, names->count, sizeof(*names->names), compare_names))
				return model_fail(e, -ENOENT, "%s: %s is missing (%u parts, no model.safetensors.index.json)",
						  dir, want, count);
		}
	}
	return 0;
}

/*
 * A folder's safetensors: the index's shards, else model.safetensors, else
 * every *.safetensors file; only is one file named instead of the folder.
 */
static int read_shards(const char *dir, const char *only, struct model_build *b, struct model_error *e)
{
	struct folder f = { dir, b, e };
	char *index = join(dir, "model.safetensors.index.json");
	int r;
	if (!index)
		return -ENOMEM;
	if (only) {
		r = read_shard(only, &f);
	} else if (os_path_kind(index) == OS_PATH_FILE) {
		char *text;
		size_t len;
		if ((r = read_text(index, &text, &len, e)) >= 0) {
			r = safetensors_index(index, text, len, read_shard, &f, e);
			free(text);
		}
	} else {
		struct name_list names = { 0 };
		if ((r = os_list_dir(dir, ".safetensors", MODEL_MAX_FILES, &names)) < 0)
			r = model_fail(e, r, "%s: cannot list: %s", dir, strerror(-r));
		else if (!names.count)
			r = model_fail(e, -ENOENT, "%s: no .safetensors file", dir);
		else
			r = check_all_shards(dir, &names, e);
		for (size_t i = 0; r >= 0 && i < names.count; i++)
			r = read_shard(names.names[i], &f);
		name_list_clear(&names);
	}
	free(index);
	return r;
}

/*
 * A folder (or one .safetensors file in it, or its config.json). A folder
 * without config.json fails before any shard is read; one .safetensors file
 * is read first, so that a broken header is what is said about it. A folder
 * that holds a config.json and no safetensors is planned from the config alone.
 */
static int open_hf(const char *path, const char *dir, const char *only_shard, bool config_alone,
		   struct hmn_model **ret, struct model_error *e)
{
	char *config = join(dir, "config.json");
	char *index = join(dir, "model.safetensors.index.json");
	char *text = NULL;
	size_t len;
	struct model_build b;
	int r;

	if (!config || !index) {
		r = -ENOMEM;
		goto out;
	}
	bool have_config = os_path_kind(config) == OS_PATH_FILE;
	if (!have_config && !only_shard) {
		r = model_fail(e, -ENOENT, "%s: no config.json in %s: hmn needs the model's architecture", path, dir);
		goto out;
	}
	if (!config_alone && !only_shard && os_path_kind(index) != OS_PATH_FILE) {
		struct name_list names = { 0 };
		if (os_list_dir(dir, ".safetensors", 1, &names) == 0 && !names.count)
			config_alone = true;
		name_list_clear(&names);
	}
	if ((r = model_build_start(&b, NULL)) < 0)
		goto out;
	b.m->format = config_alone ? HMN_MODEL_CONFIG : HMN_MODEL_SAFETENSORS;
	b.m->path = arena_strdup(b.m->arena, path);
	if (!config_alone && ((r = read_shards(dir, only_shard, &b, e)) < 0 ||
			      (r = model_build_check_names(&b, path, e)) < 0))
		goto fail;
	/*
	 * Weights files that hold no weights are broken, not a model of 0
	 * bytes; pricing the config instead would hide that the download is.
	 */
	if (!config_alone && !b.m->n_tensors) {
		r = model_fail(e, -EINVAL, "%s: its safetensors hold no tensors: no weights to price (a config.json"
			       " alone is priced from its shape)", path);
		goto fail;
	}
	if (!config_alone && (r = model_build_check_parameters(&b, path, e)) < 0)
		goto fail;
	if (!have_config) {
		r = model_fail(e, -ENOENT, "%s: no config.json in %s: hmn needs the model's architecture", path, dir);
		goto fail;
	}
	if ((r = read_text(config, &text, &len, e)) < 0)
		goto fail;
	b.m->path = arena_strdup(b.m->arena, config);
	if ((r = config_read(text, len, &b, config_alone, e)) < 0)
		goto fail;
	b.m->path = arena_strdup(b.m->arena, path);
	/* A folder's name is the model's (Meta-Llama-3-8B/). */
	char *abs = strcmp(dir, ".") ? strdup(dir) : NULL;
	if (abs) {
		size_t n = strlen(abs);
		while (n > 1 && (abs[n - 1] == '/' || abs[n - 1] == '\\'))
			abs[--n] = '\0';
		b.m->name = arena_strdup(b.m->arena, basename_of(abs));
		free(abs);
	}
	*ret = b.m;
	r = 0;
	goto out;
fail:
	model_build_abort(&b);
out:
	free(config);
	free(index);
	free(text);
	return r;
}

int hmn_model_open(const char *path, struct hmn_model **ret_model, char *why, size_t why_size)
{
	struct model_error e = { why, why_size };
	struct hmn_model *m = NULL;
	int r;

	if (why && why_size)
		why[0] = '\0';
	if (!path || !ret_model)
		return -EINVAL;
	int kind = os_path_kind(path);
	if (kind < 0)
		return model_fail(&e, kind, "%s: %s", path, strerror(-kind));
	if (kind == OS_PATH_MISSING)
		return model_fail(&e, -ENOENT, "%s: no such file or folder", path);
	if (kind == OS_PATH_DIRECTORY) {
		r = open_hf(path, path, NULL, false, &m, &e);
	} else {
		/* The first bytes say what a file is; its name says which kind of JSON. */
		struct model_reader reader;
		uint8_t magic[8] = { 0 };
		if ((r = os_file_open(path, &reader)) < 0)
			return open_failed(&e, path, r);
		uint64_t size = reader.size;
		if (size)
			r = reader.read_at(reader.userdata, 0, magic, size < 8 ? (size_t)size : 8);
		os_file_close(&reader);
		if (r < 0)
			return model_fail(&e, r, "%s: cannot read: %s", path, strerror(-r));
		char *dir = dirname_of(path);
		if (!dir)
			return -ENOMEM;
		const char *base = basename_of(path);
		if (!memcmp(magic, "GGUF", 4) || (ends_with(path, ".gguf") && size < 8)) {
			r = open_gguf(path, &m, &e);
		} else if (ends_with(path, ".safetensors")) {
			r = open_hf(path, dir, base, false, &m, &e);
		} else if (!strcmp(base, "model.safetensors.index.json")) {
			r = open_hf(path, dir, NULL, false, &m, &e);
		} else if (ends_with(path, ".json")) {
			/* A config.json of any name: read as the folder's would be, alone. */
			r = strcmp(base, "config.json") ? model_fail(&e, -EINVAL, "%s: a JSON file that is not"
								     " config.json", path)
							: open_hf(path, dir, NULL, true, &m, &e);
		} else if (ends_with(path, ".gguf")) {
			r = model_fail(&e, -EINVAL, "%s: not a GGUF file (no GGUF magic)", path);
		} else {
			r = model_fail(&e, -EINVAL, "%s: not a model: neither GGUF, safetensors nor config.json",
				       path);
		}
		free(dir);
	}
	if (r < 0)
		return r;
	*ret_model = m;
	return 0;
}
