/*
 * hmn_model_open(): what a path names (a GGUF, split or not; a .safetensors
 * file; a folder of shards; a config.json alone), its files opened through
 * the OS layer and read by the pure readers, one file at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "os/os.h"
#include "util/names.h"

#define GGUF_MAX_PARTS 256u

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static bool is_separator(char c)
{
#ifdef _WIN32
	if (c == '\\')
		return true;
#endif
	return c == '/';
}

/*
 * dir/name, malloc'd: one separator between them, whatever dir ends in
 * ("float/" as typed); Windows' own, which a \\?\ path needs.
 */
static char *join(const char *dir, const char *name)
{
#ifdef _WIN32
	const char separator = '\\';
#else
	const char separator = '/';
#endif
	size_t d = strlen(dir), n = strlen(name);
	bool ends = d && is_separator(dir[d - 1]);
	char *p = malloc(d + n + 2);
	if (p) {
		memcpy(p, dir, d);
		if (!ends)
			p[d++] = separator;
		memcpy(p + d, name, n + 1);
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

/*
 * path's last component, malloc'd: without the separators after it, nor
 * "." components ("MyLlama/." is MyLlama, as typed); "" for a root; on
 * Windows without a drive ("Z:MyModel" is MyModel).
 */
static char *last_component(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return NULL;
	size_t n = strlen(copy);
	for (;;) {
		while (n > 1 && is_separator(copy[n - 1]))
			copy[--n] = '\0';
		if (n > 2 && copy[n - 1] == '.' && is_separator(copy[n - 2]))
			copy[n -= 2] = '\0'; /* "x/." */
		else
			break;
	}
	const char *base = basename_of(copy);
#ifdef _WIN32
	if (base == copy && n >= 2 && copy[1] == ':')
		base += 2;
#endif
	memmove(copy, base, strlen(base) + 1);
	return copy;
}

/* A component that names no folder of its own: "", ".", "..", a root ("/"; on Windows "\\"). */
static bool names_no_folder(const char *component)
{
	return !*component || !strcmp(component, ".") || !strcmp(component, "..") ||
	       (strlen(component) == 1 && is_separator(component[0]));
}

/*
 * The name of the folder dir is (Meta-Llama-3-8B/), in m's arena: the
 * model's name when its files give none. As typed (a link named for the
 * model keeps that name, never the Hugging Face cache's snapshot hash it
 * points to); resolved only where what was typed names no folder ("." and
 * a config.json named from inside the folder); NULL for a root.
 */
static const char *folder_name(struct hmn_model *m, const char *dir)
{
	char *base = last_component(dir);
	if (base && names_no_folder(base)) {
		char *full = os_full_path(dir);
		free(base);
		base = full ? last_component(full) : NULL;
		free(full);
	}
	const char *name = base && !names_no_folder(base) ? arena_strdup(m->arena, base) : NULL;
	free(base);
	return name;
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
	struct reader r;
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
	unsigned count = model_split_name(path, ".gguf", &prefix);
	struct reader parts[GGUF_MAX_PARTS];
	char *names[GGUF_MAX_PARTS] = { NULL };
	size_t n = count ? count : 1, opened = 0;
	int r = 0;

	if (n > GGUF_MAX_PARTS)
		return model_fail(e, -EINVAL, "%s: a split GGUF of %zu parts (at most %u)", path, n, GGUF_MAX_PARTS);
	for (size_t i = 0; i < n; i++) {
		/* A split model is read from its first part, whichever part was named. */
		names[i] = count ? model_split_part(path, prefix, (unsigned)i + 1, count, ".gguf") : strdup(path);
		if (!names[i]) {
			r = -ENOMEM;
			break;
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
	struct reader r;
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

/* The weights of a folder without an index: one file, or one set of shards. */
struct weights {
	const char *file;       /* the file, or the set's first shard met (its name begins with PREFIX) */
	size_t prefix_len;      /* a set: PREFIX's length */
	unsigned count;         /* a set: how many shards it has; 0: one file */
};

static bool has_name(const struct name_list *names, const char *name)
{
	return name_list_find(names, name) != NULL;
}

/* Is name one of w's files? */
static bool in_weights(const struct weights *w, const char *name)
{
	size_t len;
	if (!w->count)
		return !strcmp(name, w->file);
	return model_split_name(name, ".safetensors", &len) == w->count && len == w->prefix_len &&
	       !memcmp(name, w->file, len);
}

/*
 * w names a set of shards found in names: all its count of them are there,
 * or the first one missing is named (as a split GGUF's parts are): a
 * missing one would price a fraction of the model as the whole.
 */
static int check_set(const char *dir, const struct name_list *names, const struct weights *w,
		     struct model_error *e)
{
	int r = 0;
	for (unsigned part = 1; part <= w->count && r == 0; part++) {
		char *want = model_split_part(w->file, w->prefix_len, part, w->count, ".safetensors");
		if (!want)
			r = -ENOMEM;
		else if (!has_name(names, want))
			r = model_fail(e, -ENOENT, "%s: %s is missing (%u parts, no model.safetensors.index.json)",
				       dir, SHOWN(want), w->count);
		free(want);
	}
	return r;
}

/*
 * The set PREFIX-NNNNN-of-MMMMM.safetensors in names, complete, into
 * *ret_weights: 1, or 0 when there is none. Shards of two counts under one
 * prefix (a model sharded anew beside an old download) are an error: which
 * of them is the model cannot be told, and both together are two copies.
 */
static int find_set(const char *dir, const struct name_list *names, const char *prefix, size_t prefix_len,
		    struct weights *ret_weights, struct model_error *e)
{
	struct weights w = { NULL, 0, 0 };
	for (size_t i = 0; i < names->count; i++) {
		const char *name = names->names[i];
		size_t len;
		unsigned count = model_split_name(name, ".safetensors", &len);
		if (!count || len != prefix_len || memcmp(name, prefix, len))
			continue;
		if (w.count && count != w.count)
			return model_fail(e, -EINVAL, "%s: %s and %s are shards of two sets (%u and %u files) and there"
					  " is no model.safetensors.index.json to say which is the model", dir,
					  SHOWN(w.file), SHOWN(name), w.count, count);
		if (!w.count)
			w = (struct weights){ name, len, count };
	}
	if (!w.count)
		return 0;
	int r = check_set(dir, names, &w, e);
	if (r < 0)
		return r;
	*ret_weights = w;
	return 1;
}

/*
 * NAME.safetensors alone, else one complete set of NAME-NNNNN-of-MMMMM:
 * 1 with it in *ret_weights, 0 when the folder has neither.
 */
static int find_named(const char *dir, const struct name_list *names, const char *name,
		      struct weights *ret_weights, struct model_error *e)
{
	char file[64];
	snprintf(file, sizeof(file), "%s.safetensors", name);
	const char *found = name_list_find(names, file);
	if (found) {
		*ret_weights = (struct weights){ found, 0, 0 }; /* the list's copy: file is gone on return */
		return 1;
	}
	return find_set(dir, names, name, strlen(name), ret_weights, e);
}

/* PEFT's adapter_model.safetensors: a LoRA's few matrices, never the model they adapt. */
static bool is_adapter(const char *name)
{
	return !strncmp(name, "adapter_", strlen("adapter_"));
}

/*
 * A folder whose weights have a name of their own: the one file, or the
 * one set of shards, that is not an adapter. Two of them are refused
 * rather than guessed between or summed: copies of the same weights
 * (model.fp16.safetensors beside model.fp32.safetensors) would price the
 * model twice, and which is meant cannot be told.
 */
static int find_other(const char *dir, const struct name_list *names, struct weights *ret_weights,
		      struct model_error *e)
{
	struct weights w = { NULL, 0, 0 };
	const char *adapter = NULL;
	for (size_t i = 0; i < names->count; i++) {
		const char *name = names->names[i];
		if (is_adapter(name)) {
			adapter = adapter ? adapter : name;
			continue;
		}
		if (w.file && !in_weights(&w, name))
			return model_fail(e, -EINVAL, "%s: no model.safetensors, model-NNNNN-of-MMMMM.safetensors nor"
					  " index, and both %s and %s: which are the weights cannot be told (name"
					  " one .safetensors file)", dir, SHOWN(w.file), SHOWN(name));
		if (!w.file) {
			size_t len;
			unsigned count = model_split_name(name, ".safetensors", &len);
			w = (struct weights){ name, count ? len : 0, count };
		}
	}
	if (!w.file)
		return model_fail(e, -EINVAL, "%s: %s is a LoRA adapter, not a model's weights: fit the model it"
				  " adapts", dir, SHOWN(adapter));
	int r = w.count ? check_set(dir, names, &w, e) : 0;
	if (r < 0)
		return r;
	*ret_weights = w;
	return 0;
}

/*
 * Which of a folder's .safetensors files (no index) are the model's
 * weights. Folders hold more than the weights: Mistral's repositories
 * both model-*.safetensors and consolidated.safetensors (the same weights
 * under mistral-inference's names), others model.fp16.safetensors beside
 * model.safetensors, a LoRA's adapter_model.safetensors. Summing them
 * priced a model two or three times (or refused it: "named twice").
 * transformers loads model.safetensors, else the model-* shards;
 * mistral-inference consolidated.safetensors: in that order, else the one
 * file or set of shards left.
 */
static int pick_weights(const char *dir, const struct name_list *names, struct weights *ret_weights,
			struct model_error *e)
{
	static const char *const in_order[] = { "model", "consolidated" };
	for (size_t i = 0; i < sizeof(in_order) / sizeof(in_order[0]); i++) {
		int r = find_named(dir, names, in_order[i], ret_weights, e);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return find_other(dir, names, ret_weights, e);
}

/* A folder without an index: the files pick_weights() says, in their names' order. */
static int read_picked(const char *dir, struct folder *f)
{
	struct name_list names = { 0 };
	struct weights w = { NULL, 0, 0 };
	int r = os_list_dir(dir, ".safetensors", MODEL_MAX_FILES, &names);
	if (r < 0)
		r = model_fail(f->e, r, "%s: cannot list: %s", dir, strerror(-r));
	else if (!names.count)
		r = model_fail(f->e, -ENOENT, "%s: no .safetensors file", dir);
	else
		r = pick_weights(dir, &names, &w, f->e);
	for (size_t i = 0; r >= 0 && i < names.count; i++)
		if (in_weights(&w, names.names[i]))
			r = read_shard(names.names[i], f);
	name_list_clear(&names);
	return r;
}

/*
 * The whole set that shard (PREFIX-NNNNN-of-MMMMM.safetensors) is one of,
 * as a split GGUF is read whichever part is named: one shard alone priced
 * a fraction of the model (its layers' weights, the config's whole cache)
 * and said it fit. Each part by its own name, in order (not from a
 * listing, which leaves out a dot-file's set); the first missing is said
 * of path, as typed.
 */
static int read_set_of(const char *path, const char *dir, const char *shard, struct folder *f)
{
	size_t prefix;
	unsigned count = model_split_name(shard, ".safetensors", &prefix);
	if (count > MODEL_MAX_FILES)
		return model_fail(f->e, -E2BIG, "%s: a set of %u shards (at most %u)", path, count, MODEL_MAX_FILES);
	int r = 0;
	for (unsigned part = 1; part <= count && r >= 0; part++) {
		char *want = model_split_part(shard, prefix, part, count, ".safetensors");
		/* Opened as it is read (no stat first: 163 shards for DeepSeek-V3); a folder of its name is said so. */
		r = want ? read_shard(want, f) : -ENOMEM;
		if (r == -ENOENT)
			r = model_fail(f->e, -ENOENT, "%s: %s, of its set of %u, is missing", path, SHOWN(want), count);
		free(want);
	}
	return r;
}

/*
 * A folder's safetensors: the index's shards, else the files
 * pick_weights() says; only is one file named instead of the folder
 * (a shard of a set: its whole set).
 */
static int read_shards(const char *path, const char *dir, const char *only, struct model_build *b,
		       struct model_error *e)
{
	struct folder f = { dir, b, e };
	char *index = join(dir, "model.safetensors.index.json");
	size_t prefix;
	int r;
	if (!index)
		return -ENOMEM;
	if (only && model_split_name(only, ".safetensors", &prefix)) {
		r = read_set_of(path, dir, only, &f);
	} else if (only) {
		r = read_shard(only, &f);
	} else if (os_path_kind(index) == OS_PATH_FILE) {
		char *text;
		size_t len;
		if ((r = read_text(index, &text, &len, e)) >= 0) {
			r = safetensors_index(index, text, len, read_shard, &f, e);
			free(text);
		}
	} else {
		r = read_picked(dir, &f);
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
	int r = 0;

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
		if (os_list_dir(dir, ".safetensors", 1, &names) == 0 && !names.count) {
			/* Weights whose link leads nowhere (a deleted blob) are broken weights, not none. */
			if (names.dangling)
				r = model_fail(e, -ENOENT, "%s: %s leads nowhere (its file is gone)", path,
					       SHOWN(names.dangling));
			config_alone = true;
		}
		name_list_clear(&names);
		if (r < 0)
			goto out;
	}
	if ((r = model_build_start(&b, NULL)) < 0)
		goto out;
	b.m->format = config_alone ? HMN_MODEL_CONFIG : HMN_MODEL_SAFETENSORS;
	b.m->path = arena_strdup(b.m->arena, path);
	if (!config_alone && ((r = read_shards(path, dir, only_shard, &b, e)) < 0 ||
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
	if ((r = config_read(config, text, len, &b, config_alone, e)) < 0)
		goto fail;
	b.m->name = folder_name(b.m, dir);
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

/*
 * ---- a GGUF folder's vision projector ----
 *
 * llama.cpp loads a vision model's mmproj-*.gguf beside the model
 * (llama-server --mmproj, or -hf, which fetches the one its repository
 * names): a folder holding both is priced as both, the projector as the
 * vision part. A .gguf named alone is the model alone (llama.cpp needs
 * --mmproj said). Repositories ship the projector in several types side by
 * side (mmproj-F16, -BF16, -F32): one is loaded, so one is priced: f16
 * where there is one (convert_hf_to_gguf.py's default type), else the first
 * by name; which one is said in a note.
 */
static const char *projector_of(const struct name_list *names, size_t *ret_count)
{
	const char *first = NULL, *f16 = NULL;
	size_t count = 0;
	for (size_t i = 0; i < names->count; i++) {
		const char *name = names->names[i];
		if (strncmp(name, "mmproj", strlen("mmproj")))
			continue;
		count++;
		first = first ? first : name;
		/* "mmproj-F16.gguf", "mmproj-model-f16.gguf": f16 as a word, not bf16's tail. */
		size_t len = strlen(name), tail = strlen("f16.gguf");
		const char *p = len > tail ? name + len - tail : NULL;
		if (!f16 && p && (!strcmp(p, "f16.gguf") || !strcmp(p, "F16.gguf")) &&
		    (p[-1] == '-' || p[-1] == '_' || p[-1] == '.'))
			f16 = name;
	}
	*ret_count = count;
	return f16 ? f16 : first;
}

static int add_projector(const char *dir, const char *name, size_t count, struct hmn_model *m, struct model_error *e)
{
	struct reader reader;
	char *path = join(dir, name);
	if (!path)
		return -ENOMEM;
	int r = os_file_open(path, &reader);
	if (r < 0)
		r = open_failed(e, path, r);
	else {
		r = gguf_read_projector(&reader, m, e);
		os_file_close(&reader);
	}
	free(path);
	if (r >= 0 && count > 1) {
		char note[200];
		snprintf(note, sizeof(note), "the vision projector priced is %s, one of %zu beside the model", SHOWN(name),
			 count);
		model_add_note(m, note);
	}
	return r;
}

/*
 * A folder without safetensors that holds GGUF files (a download of one
 * from a GGUF repository): its one model, a split one from its parts, or
 * -EAGAIN when it holds none (read as a transformers folder then). Two
 * models (a repository's quants side by side) are refused: which is meant
 * cannot be told.
 */
static int open_gguf_folder(const char *dir, bool have_config, struct hmn_model **ret, struct model_error *e)
{
	struct name_list names = { 0 };
	int r = os_list_dir(dir, ".gguf", MODEL_MAX_FILES, &names);
	if (r < 0 || !names.count) {
		name_list_clear(&names);
		return -EAGAIN; /* what open_hf says of the folder stands */
	}
	/*
	 * A vision model's projector (llama.cpp's mmproj-*.gguf, beside the
	 * model in the repositories that serve it) is loaded beside the
	 * model, never as one: not a second model; priced as its vision part
	 * (add_projector).
	 */
	const char *model = NULL, *other = NULL, *projector = NULL;
	size_t first_len = 0, len, files = 0;
	unsigned first_count = 0;
	for (size_t i = 0; i < names.count; i++) {
		const char *name = names.names[i];
		if (!strncmp(name, "mmproj", strlen("mmproj"))) {
			projector = projector ? projector : name;
			continue;
		}
		files++;
		unsigned count = model_split_name(name, ".gguf", &len);
		if (!model) {
			model = name;
			first_count = count;
			first_len = len;
		} else if (!other &&
			   (!first_count || count != first_count || len != first_len || memcmp(name, model, len))) {
			other = name;
		}
	}
	if (!model) {
		r = model_fail(e, -EINVAL, "%s: %s is a vision model's projector, not a model: fit the model it serves",
			       dir, SHOWN(projector));
	} else if (other) {
		r = model_fail(e, -EINVAL, "%s: %s, and GGUF files of more than one model (%s, %s%s): name the one"
			       " to fit", dir, have_config ? "no safetensors weights" : "no config.json",
			       SHOWN(model), SHOWN(other), files > 2 ? ", …" : "");
	} else {
		char *path = join(dir, model);
		r = path ? open_gguf(path, ret, e) : -ENOMEM;
		free(path);
		if (r >= 0) {
			(*ret)->path = arena_strdup((*ret)->arena, dir); /* the path as given */
			if (!(*ret)->name)
				(*ret)->name = folder_name(*ret, dir);
		}
		size_t n_projectors;
		const char *chosen = projector_of(&names, &n_projectors);
		if (r >= 0 && chosen && (r = add_projector(dir, chosen, n_projectors, *ret, e)) < 0)
			*ret = hmn_model_free(*ret);
	}
	name_list_clear(&names);
	return r;
}

/* Does dir hold safetensors weights (an index, or a .safetensors file)? */
static bool has_safetensors(const char *dir)
{
	struct name_list names = { 0 };
	char *index = join(dir, "model.safetensors.index.json");
	bool has = !index || os_path_kind(index) == OS_PATH_FILE;
	free(index);
	if (!has) {
		int r = os_list_dir(dir, ".safetensors", 1, &names);
		has = r == -E2BIG || (r == 0 && names.count);
		name_list_clear(&names);
	}
	return has;
}

/*
 * A folder: a transformers one (config.json and safetensors), else the
 * GGUF model it holds, config.json or not (a GGUF repository may carry
 * the original's config.json: its shape alone priced the model in bf16
 * beside the Q4 file that is the weights), else config.json alone.
 */
static int open_folder(const char *path, struct hmn_model **ret, struct model_error *e)
{
	/* Safetensors without a config.json cannot be priced: the GGUF beside them can (a LoRA adapter). */
	char *config = join(path, "config.json");
	if (!config)
		return -ENOMEM;
	bool have_config = os_path_kind(config) == OS_PATH_FILE;
	free(config);
	if (!have_config || !has_safetensors(path)) {
		int r = open_gguf_folder(path, have_config, ret, e);
		if (r != -EAGAIN)
			return r;
	}
	return open_hf(path, path, NULL, false, ret, e);
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
		r = open_folder(path, &m, &e);
	} else {
		/* The first bytes say what a file is; its name says which kind of JSON. */
		struct reader reader;
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
		/* A .gguf without the magic too: its reader says what it is (a Git LFS pointer) or is not. */
		if (!memcmp(magic, "GGUF", 4) || ends_with(path, ".gguf")) {
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
