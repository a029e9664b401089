/*
 * model_resolve(): what MODEL, as typed, names, decided once. Only names,
 * kinds of paths and folder listings are looked at (and a file's first
 * bytes, the index, refs/main): the headers are open.c's to read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resolve.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/names.h"

#define GGUF_MAX_PARTS 256u
#define INDEX_NAME "model.safetensors.index.json"
#define HF_REPO_MAX 96u /* huggingface_hub's REPO_ID_MAX_LENGTH */

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

char *model_join_path(const char *dir, const char *name)
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

const char *model_base_name(const char *path)
{
	const char *slash = last_separator(path);
	return slash ? slash + 1 : path;
}

/* path without the separators after it, nor "." components ("MyLlama/./" is MyLlama), malloc'd. */
static char *trimmed(const char *path)
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
	return copy;
}

/*
 * path's last component, malloc'd: without the separators after it, nor
 * "." components ("MyLlama/." is MyLlama, as typed); "" for a root; on
 * Windows without a drive ("Z:MyModel" is MyModel).
 */
static char *last_component(const char *path)
{
	char *copy = trimmed(path);
	if (!copy)
		return NULL;
	const char *base = model_base_name(copy);
#ifdef _WIN32
	if (base == copy && strlen(copy) >= 2 && copy[1] == ':')
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

/* ---- Hugging Face's names -------------------------------------------------- */

/* A commit's hash as refs/ holds it: 40 hexadecimal digits (SHA-1), or 64 (SHA-256). */
static bool commit_hash(const char *s, size_t n)
{
	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}


static bool repo_part_valid(const char *s, size_t n)
{
	if (!n || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
		if (!word && c != '-' && c != '.')
			return false;
		if (i && (c == '-' || c == '.') && s[i - 1] == c)
			return false; /* "--" and "..": huggingface_hub refuses both */
	}
	return true;
}

bool model_hf_repo_id_valid(const char *id)
{
	size_t n = strlen(id);
	const char *slash = strchr(id, '/');
	if (!n || n > HF_REPO_MAX)
		return false;
	if (!slash)
		return repo_part_valid(id, n);
	return repo_part_valid(id, (size_t)(slash - id)) && repo_part_valid(slash + 1, n - (size_t)(slash - id) - 1);
}

/*
 * The last component of path as it names a folder: as typed, else (".",
 * "..", a config.json named from inside its folder) resolved; malloc'd,
 * NULL where it cannot be told. A snapshot's hash typed is resolved too
 * (snapshots/HASH, HASH or ../HASH from inside the cache): the folders
 * above it name its repository.
 */
static char *folder_component(const char *path, char **ret_full)
{
	char *base = last_component(path), *full = NULL;
	*ret_full = NULL;
	if (base && (names_no_folder(base) || commit_hash(base, strlen(base)))) {
		full = os_full_path(path);
		if (names_no_folder(base)) {
			free(base);
			base = full ? last_component(full) : NULL;
		}
	}
	*ret_full = full;
	return base;
}

/*
 * The repository a cache folder's name stands for: "models--ORG--NAME" is
 * ORG/NAME, "models--NAME" (a model of no organisation: gpt2) NAME;
 * malloc'd, NULL for any other name.
 */
static char *repo_of_cache_folder(const char *folder)
{
	static const char prefix[] = "models--";
	if (strncmp(folder, prefix, sizeof(prefix) - 1))
		return NULL;
	char *id = strdup(folder + sizeof(prefix) - 1);
	if (!id)
		return NULL;
	char *sep = strstr(id, "--");
	if (sep) {
		*sep = '/';
		memmove(sep + 1, sep + 2, strlen(sep + 2) + 1);
	}
	if (!model_hf_repo_id_valid(id))
		id = (free(id), NULL);
	return id;
}

/*
 * The repository a snapshot folder (…/models--ORG--NAME/snapshots/HASH)
 * belongs to, malloc'd; NULL for a folder that is not one.
 */
static char *repo_of_snapshot(const char *dir)
{
	char *path = trimmed(dir), *up = NULL, *upper = NULL, *repo = NULL;
	if (!path)
		return NULL;
	if ((up = dirname_of(path)) && strcmp(model_base_name(path), up) && !strcmp(model_base_name(up), "snapshots") &&
	    (upper = dirname_of(up)))
		repo = repo_of_cache_folder(model_base_name(upper));
	free(path);
	free(up);
	free(upper);
	return repo;
}

/*
 * The name of the folder dir is (Meta-Llama-3-8B/), malloc'd: the model's
 * name when its files give none. As typed (a link named for the model
 * keeps that name); resolved only where what was typed names no folder
 * ("." and a config.json named from inside the folder) or is a snapshot's
 * hash (typed from inside the cache); NULL for a root.
 * A Hugging Face cache snapshot's is its repository's, never its hash.
 */
static char *folder_name(const char *dir, bool *ret_repo)
{
	char *full, *base = folder_component(dir, &full), *repo;
	*ret_repo = false;
	if ((repo = repo_of_snapshot(dir)) || (full && (repo = repo_of_snapshot(full)))) {
		free(base);
		free(full);
		*ret_repo = true;
		return repo;
	}
	free(full);
	if (base && names_no_folder(base))
		base = (free(base), NULL);
	return base;
}

/* ---- the result --------------------------------------------------------------- */

static int add_path(struct model_files *f, const char ***list, size_t *count, size_t *capacity, const char *s)
{
	const char *copy = arena_strdup(f->arena, s);
	if (!copy || array_reserve((void **)list, capacity, *count, sizeof(**list)) < 0)
		return -ENOMEM;
	(*list)[(*count)++] = copy;
	return 0;
}

static int add_file(struct model_files *f, const char *path)
{
	return add_path(f, &f->files, &f->n_files, &f->files_capacity, path);
}

static int add_aside(struct model_files *f, const char *name, enum model_aside_reason reason)
{
	const char *copy = arena_strdup(f->arena, name);
	if (!copy || array_reserve((void **)&f->aside, &f->aside_capacity, f->n_aside, sizeof(*f->aside)) < 0)
		return -ENOMEM;
	f->aside[f->n_aside++] = (struct model_aside){ copy, reason };
	return 0;
}

/* dir/name into files. */
static int add_file_in(struct model_files *f, const char *dir, const char *name)
{
	char *path = model_join_path(dir, name);
	int r = path ? add_file(f, path) : -ENOMEM;
	free(path);
	return r;
}

/* Takes ownership of a malloc'd string: its copy in the arena (NULL for NULL). */
static const char *keep(struct model_files *f, char *s)
{
	const char *copy = s ? arena_strdup(f->arena, s) : NULL;
	free(s);
	return copy;
}

void model_files_clear(struct model_files *f)
{
	safetensors_index_clear(&f->index);
	free(f->files);
	free(f->missing);
	free(f->aside);
	arena_free(f->arena);
	*f = (struct model_files){ 0 };
}

const char *model_aside_reason_name(enum model_aside_reason reason)
{
	switch (reason) {
	case MODEL_ASIDE_ADAPTER: return "LoRA adapter";
	case MODEL_ASIDE_COPY: return "second copy of the weights";
	case MODEL_ASIDE_PROJECTOR: return "vision projector";
	}
	return "?";
}

int model_open_failed(struct model_error *e, const char *path, int r)
{
	if (r == -ENOENT)
		return model_fail(e, r, "%s: no such file", path);
	if (r == -EISDIR)
		return model_fail(e, r, "%s: a folder where a file was expected", path);
	if (r == -EINVAL)
		return model_fail(e, r, "%s: not a regular file", path);
	return model_fail(e, r, "%s: %s", path, strerror(-r));
}

int model_read_small(const char *path, size_t max, char **ret_text, size_t *ret_len, struct model_error *e)
{
	struct reader r;
	int ret = os_file_open(path, &r);
	if (ret < 0)
		return model_open_failed(e, path, ret);
	if (r.size > max) {
		os_file_close(&r);
		return model_fail(e, -EFBIG, "%s: %llu bytes, more than the %zu bytes it may take", path,
				  (unsigned long long)r.size, max);
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

/* ---- GGUF -------------------------------------------------------------------- */

/* A GGUF's parts: the file itself, or each part of the split it is one of, by name, in order. */
static int resolve_gguf_parts(struct model_files *f, const char *path, struct model_error *e)
{
	size_t prefix;
	unsigned count = model_split_name(path, ".gguf", &prefix);
	f->source = MODEL_SOURCE_GGUF;
	if (!count)
		return add_file(f, path);
	if (count > GGUF_MAX_PARTS)
		return model_fail(e, -EINVAL, "%s: a split GGUF of %u parts (at most %u)", path, count, GGUF_MAX_PARTS);
	for (unsigned part = 1; part <= count; part++) {
		/* A split model is read from its first part, whichever part was named. */
		char *name = model_split_part(path, prefix, part, count, ".gguf");
		int r = name ? add_file(f, name) : -ENOMEM;
		free(name);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * llama.cpp's vision projector by its name: "mmproj" anywhere in it, in
 * any case, as the repositories that serve one name it (mmproj-F16.gguf,
 * llava-v1.5-7b-mmproj-model-f16.gguf, gemma-3-4b-it-mmproj-f16.gguf,
 * Model_mmproj-Q8_0.gguf). gguf_read_projector() checks it is one (clip).
 */
bool model_is_projector_name(const char *name)
{
	static const char word[] = "mmproj";
	for (const char *p = name; *p; p++) {
		size_t i = 0;
		while (word[i] && (p[i] | 0x20) == word[i])
			i++;
		if (!word[i])
			return true;
	}
	return false;
}

/*
 * A folder without safetensors that holds GGUF files (a download of one
 * from a GGUF repository): its one model, a split one from its parts, or
 * -EAGAIN when it holds none (read as a transformers folder then). Two
 * models (a repository's quants side by side) are refused: which is meant
 * cannot be told. A vision model's projector (llama.cpp's mmproj-*.gguf,
 * beside the model in the repositories that serve it) is loaded beside the
 * model, never as one: set aside, as a LoRA's adapter_* is.
 */
static int resolve_gguf_folder(struct model_files *f, const char *dir, bool have_config, struct model_error *e)
{
	struct name_list names = { 0 };
	int r = os_list_dir(dir, ".gguf", MODEL_MAX_FILES, &names);
	if (r < 0 || (!names.count && !names.n_dangling)) {
		name_list_clear(&names);
		return -EAGAIN; /* what the transformers folder's reading says of it stands */
	}
	const char *model = NULL, *other = NULL, *projector = NULL;
	size_t first_len = 0, len, files = 0;
	unsigned first_count = 0;
	for (size_t i = 0; i < names.count && r >= 0; i++) {
		const char *name = names.names[i];
		if (model_is_projector_name(name)) {
			projector = projector ? projector : name;
			r = add_aside(f, name, MODEL_ASIDE_PROJECTOR);
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
	/*
	 * A link that leads nowhere (a cache's blob deleted) is a model or a
	 * projector gone, not one absent: where it would be the model, said
	 * so; a projector's is set aside as one, whose reading says it is gone.
	 */
	const char *gone = NULL, *gone_projector = NULL;
	for (size_t i = 0; i < names.n_dangling; i++) {
		if (!model_is_projector_name(names.dangling[i]))
			gone = gone ? gone : names.dangling[i];
		else
			gone_projector = gone_projector ? gone_projector : names.dangling[i];
	}
	if (r >= 0 && gone_projector && !projector)
		r = add_aside(f, gone_projector, MODEL_ASIDE_PROJECTOR);
	if (r >= 0 && gone && !model)
		r = model_fail(e, -ENOENT, "%s: %s leads nowhere (its file is gone)", dir, SHOWN(gone));
	if (r < 0) {
	} else if (!model) {
		r = model_fail(e, -EINVAL, "%s: %s is a vision model's projector, not a model: fit the model it serves",
			       dir, SHOWN(projector ? projector : gone_projector));
	} else if (other) {
		r = model_fail(e, -EINVAL, "%s: %s, and GGUF files of more than one model (%s, %s%s): name the one"
			       " to fit", dir, have_config ? "no safetensors weights" : "no config.json",
			       SHOWN(model), SHOWN(other), files > 2 ? ", …" : "");
	} else {
		char *path = model_join_path(dir, model);
		r = path ? resolve_gguf_parts(f, path, e) : -ENOMEM;
		free(path);
	}
	name_list_clear(&names);
	return r;
}

/* ---- a folder's safetensors, without an index --------------------------------- */

/* The weights of a folder without an index: one file, or one set of shards. */
struct weights {
	const char *file;       /* the file, or the set's first shard met (its name begins with PREFIX) */
	size_t prefix_len;      /* a set: PREFIX's length */
	unsigned count;         /* a set: how many shards it has; 0: one file */
};

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
		else if (!name_list_find(names, want))
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
 * weights, into files in their names' order, the rest set aside. Folders
 * hold more than the weights: Mistral's repositories both
 * model-*.safetensors and consolidated.safetensors (the same weights under
 * mistral-inference's names), others model.fp16.safetensors beside
 * model.safetensors, a LoRA's adapter_model.safetensors. Summing them
 * priced a model two or three times (or refused it: "named twice").
 * transformers loads model.safetensors, else the model-* shards;
 * mistral-inference consolidated.safetensors: in that order, else the one
 * file or set of shards left.
 */
static int pick_weights(struct model_files *f, const char *dir, const struct name_list *names,
			struct model_error *e)
{
	static const char *const in_order[] = { "model", "consolidated" };
	struct weights w = { NULL, 0, 0 };
	int r = 0;
	for (size_t i = 0; i < sizeof(in_order) / sizeof(in_order[0]) && r == 0; i++)
		r = find_named(dir, names, in_order[i], &w, e);
	if (r == 0)
		r = find_other(dir, names, &w, e);
	for (size_t i = 0; r >= 0 && i < names->count; i++) {
		const char *name = names->names[i];
		if (in_weights(&w, name))
			r = add_file_in(f, dir, name);
		else
			r = add_aside(f, name, is_adapter(name) ? MODEL_ASIDE_ADAPTER : MODEL_ASIDE_COPY);
	}
	return r < 0 ? r : 0;
}

/* ---- a folder's safetensors, through its index --------------------------------- */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The index's shards: each one there is read, each one not (a download in
 * progress; in a cache snapshot, no link yet, or one that leads nowhere)
 * is priced from the index's total_size, which must then say it: absent,
 * the first one missing is said as it always was; malformed, the key.
 */
static int resolve_index(struct model_files *f, const char *dir, const char *index, struct model_error *e)
{
	char *text;
	size_t len;
	int r = model_read_small(index, MODEL_MAX_TEXT, &text, &len, e);
	if (r < 0)
		return r;
	r = safetensors_index_read(index, text, len, &f->index, e);
	free(text);
	if (r < 0)
		return r;
	f->index_path = arena_strdup(f->arena, index);
	if (!f->index_path)
		return -ENOMEM;
	const char *first_missing = NULL;
	for (size_t i = 0; i < f->index.n_shards && r >= 0; i++) {
		const char *shard = f->index.shards[i];
		char *path = model_join_path(dir, shard);
		if (!path)
			return -ENOMEM;
		/*
		 * What cannot be told (a permission) is read, and its reader says
		 * why it cannot be. A link that leads nowhere is no download in
		 * progress: huggingface_hub links a snapshot's file to its blob
		 * only once the blob is whole, so a blob gone is a damaged cache.
		 */
		if (os_path_dangling(path)) {
			r = model_fail(e, -ENOENT, "%s: %s leads nowhere (its file is gone): the download is damaged,"
				       " not in progress", dir, SHOWN(shard));
		} else if (os_path_kind(path) == OS_PATH_MISSING ||
			   (f->index.total == INDEX_TOTAL_VALID && model_path_is_lfs_pointer(path))) {
			/*
			 * A Git LFS pointer (a clone without git-lfs, to plan) is a
			 * shard not downloaded, priced from total_size as one; without
			 * a total_size to price it, its reader says what it is.
			 */
			f->n_lfs_pointers += os_path_kind(path) != OS_PATH_MISSING;
			r = add_path(f, &f->missing, &f->n_missing, &f->missing_capacity, shard);
			if (r >= 0 && !first_missing)
				first_missing = f->missing[f->n_missing - 1];
			if (f->index.total == INDEX_TOTAL_ABSENT && r >= 0)
				r = model_fail(e, -ENOENT, "%s: no such file, and %s has no metadata.total_size to"
					       " price the shards not downloaded from", path,
					       SHOWN(model_base_name(index)));
		} else {
			r = add_file(f, path);
		}
		free(path);
	}
	/* Said in the shards' order (the index's is its tensors' names': lm_head first). */
	if (f->n_missing > 1)
		qsort(f->missing, f->n_missing, sizeof(*f->missing), compare_strings);
	if (r >= 0 && first_missing && f->index.total == INDEX_TOTAL_INVALID)
		r = model_fail(e, -EINVAL, "%s: metadata.total_size: %s", index, f->index.total_problem);
	return r;
}

/* ---- folders ------------------------------------------------------------------ */

/*
 * A folder: a transformers one (config.json and safetensors), else the
 * GGUF model it holds, config.json or not (a GGUF repository may carry
 * the original's config.json: its shape alone priced the model in bf16
 * beside the Q4 file that is the weights), else config.json alone. A
 * folder without config.json fails before any shard is read. gguf: look
 * for a GGUF model (not when its index was named).
 */
static int resolve_folder(struct model_files *f, const char *typed, const char *dir, bool gguf,
			  struct model_error *e)
{
	char *config = model_join_path(dir, "config.json"), *index = model_join_path(dir, INDEX_NAME);
	struct name_list names = { 0 };
	int r = 0, listed = 0;

	if (!config || !index) {
		r = -ENOMEM;
		goto out;
	}
	if (!(f->dir = arena_strdup(f->arena, dir))) {
		r = -ENOMEM;
		goto out;
	}
	bool have_config = os_path_kind(config) == OS_PATH_FILE;
	bool have_index = os_path_kind(index) == OS_PATH_FILE;
	if (!have_index)
		listed = os_list_dir(dir, ".safetensors", MODEL_MAX_FILES, &names);
	/* Safetensors without a config.json cannot be priced: the GGUF beside them can (a LoRA adapter). */
	bool has_safetensors = have_index || listed == -E2BIG || (listed == 0 && names.count);
	if (gguf && (!have_config || !has_safetensors)) {
		r = resolve_gguf_folder(f, dir, have_config, e);
		if (r != -EAGAIN)
			goto out;
		r = 0;
	}
	if (!have_config) {
		r = model_fail(e, -ENOENT, "%s: no config.json in %s: hmn needs the model's architecture", typed, dir);
		goto out;
	}
	if (!(f->config = arena_strdup(f->arena, config))) {
		r = -ENOMEM;
		goto out;
	}
	f->source = MODEL_SOURCE_SAFETENSORS;
	if (have_index) {
		r = resolve_index(f, dir, index, e);
	} else if (listed < 0) {
		r = model_fail(e, listed, "%s: cannot list: %s", dir, strerror(-listed));
	} else if (!names.count) {
		/* Weights whose link leads nowhere (a deleted blob) are broken weights, not none. */
		if (names.n_dangling)
			r = model_fail(e, -ENOENT, "%s: %s leads nowhere (its file is gone)", typed,
				       SHOWN(names.dangling[0]));
		f->source = MODEL_SOURCE_CONFIG;
	} else {
		r = pick_weights(f, dir, &names, e);
	}
out:
	name_list_clear(&names);
	free(config);
	free(index);
	return r;
}

/* The folder's name, or its repository's, as the model's. */
static int name_by_folder(struct model_files *f, const char *dir)
{
	bool repo;
	char *name = folder_name(dir, &repo);
	if (!name)
		return 0;
	f->repo_named = repo;
	return (f->name = keep(f, name)) ? 0 : -ENOMEM;
}

/* ---- the Hugging Face cache ------------------------------------------------------ */

/*
 * The one snapshot of a cache root without refs/main (a cache copied in
 * part, a revision fetched by its hash), its name malloc'd into
 * *ret_hash; -ENOENT where there are none or several (which one is meant
 * is not known), -ENOMEM.
 */
static int only_snapshot(const char *snapshots, char **ret_hash)
{
	struct name_list names = { 0 };
	int r = os_list_folders(snapshots, 2, &names);
	if (r >= 0 && names.count == 1 && commit_hash(names.names[0], strlen(names.names[0])))
		r = (*ret_hash = strdup(names.names[0])) ? 0 : -ENOMEM;
	else if (r != -ENOMEM)
		r = -ENOENT;
	name_list_clear(&names);
	return r;
}

/*
 * A cache root, models--ORG--NAME: the snapshot refs/main names (a commit's
 * hash, checked to be one: it becomes a path), read as a folder, the model
 * named repo.
 */
static int resolve_cache_root(struct model_files *f, const char *typed, const char *root, const char *repo,
			      struct model_error *e)
{
	char *refs = model_join_path(root, "refs"), *main_ref = refs ? model_join_path(refs, "main") : NULL;
	char *snapshots = model_join_path(root, "snapshots"), *snapshot = NULL, *text = NULL;
	size_t len = 0;
	int r;

	if (!main_ref || !snapshots) {
		r = -ENOMEM;
		goto out;
	}
	if (os_path_kind(main_ref) != OS_PATH_FILE) {
		r = only_snapshot(snapshots, &text);
		if (r == -ENOMEM)
			goto out;
		if (r < 0) {
			r = model_fail(e, -ENOENT, "%s: a Hugging Face cache folder without refs/main: name one of its"
				       " snapshots (%s)", typed, snapshots);
			goto out;
		}
		len = strlen(text);
		snprintf(f->note, sizeof(f->note), "no refs/main in its cache folder: its one snapshot, %.12s, read",
			 text);
	} else if ((r = model_read_small(main_ref, 256, &text, &len, e)) < 0) {
		goto out;
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (!commit_hash(text, len)) {
		r = model_fail(e, -EINVAL, "%s: refs/main holds '%s', not a commit's hash", typed, SHOWN(text));
		goto out;
	}
	if (!(snapshot = model_join_path(snapshots, text))) {
		r = -ENOMEM;
		goto out;
	}
	if (os_path_kind(snapshot) != OS_PATH_DIRECTORY) {
		r = model_fail(e, -ENOENT, "%s: refs/main names commit %s, whose snapshot is not in the cache", typed,
			       text);
		goto out;
	}
	if ((r = resolve_folder(f, typed, snapshot, true, e)) < 0)
		goto out;
	f->repo_named = true;
	r = (f->name = arena_strdup(f->arena, repo)) ? 0 : -ENOMEM;
out:
	free(refs);
	free(main_ref);
	free(snapshots);
	free(snapshot);
	free(text);
	return r;
}

/* The user's home: HOME (on Windows USERPROFILE), NULL when unset or untrusted. */
static const char *home_dir(void)
{
#ifdef _WIN32
	const char *v = os_trusted_getenv("USERPROFILE");
#else
	const char *v = os_trusted_getenv("HOME");
#endif
	return v && *v ? v : NULL;
}

static bool var_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Appends n bytes of text to *buf (its length *len, its room *cap), NUL-terminated. */
static int append(char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = (*len + n + 1) * 2;
		char *p = realloc(*buf, want);
		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = want;
	}
	memcpy(*buf + *len, text, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/*
 * A path from the environment as huggingface_hub takes it:
 * os.path.expandvars(os.path.expanduser(v)). A leading "~" alone or before
 * a separator is the home ("~user" is left as it is: hmn looks up no other
 * user's home); then $NAME and ${NAME} are the variable's value, one that
 * is not set left as written, as Python leaves it. malloc'd; NULL: no memory.
 */
static char *expand_path(const char *v)
{
	const char *home = home_dir();
	char *out = NULL;
	size_t len = 0, cap = 0;
	int r = append(&out, &len, &cap, "", 0);
	if (r >= 0 && v[0] == '~' && (!v[1] || is_separator(v[1])) && home) {
		r = append(&out, &len, &cap, home, strlen(home));
		v++;
	}
	while (r >= 0 && *v) {
		const char *name = NULL, *value = NULL;
		size_t n = 0, skip = 1;
		if (v[0] == '$' && v[1] == '{' && strchr(v + 2, '}')) {
			name = v + 2;
			n = (size_t)(strchr(name, '}') - name);
			skip = n + 3;
		} else if (v[0] == '$') {
			name = v + 1;
			while (var_char(name[n]))
				n++;
			skip = n + 1;
		}
		if (name && n && n < 256) {
			char key[256];
			memcpy(key, name, n);
			key[n] = '\0';
			value = os_trusted_getenv(key);
		}
		r = value ? append(&out, &len, &cap, value, strlen(value)) : append(&out, &len, &cap, v, skip);
		v += skip;
	}
	if (r < 0)
		out = (free(out), NULL);
	return out;
}

/*
 * The local Hugging Face cache, as huggingface_hub's constants.py finds
 * it: $HF_HUB_CACHE, else the older $HUGGINGFACE_HUB_CACHE, else
 * $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
 * ~/.cache/huggingface/hub (HOME; on Windows USERPROFILE); each expanded
 * as expand_path() says. malloc'd; NULL when none of them is set. Paths
 * from the environment are NULL under privileges the caller lacks
 * (os_trusted_getenv).
 */
static char *hf_cache_dir(void)
{
	static const char *const hubs[] = { "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE" };
	const char *v;
	for (size_t i = 0; i < sizeof(hubs) / sizeof(hubs[0]); i++)
		if ((v = os_trusted_getenv(hubs[i])) && *v)
			return expand_path(v);
	char *base = NULL, *cache = NULL, *dot;
	if ((v = os_trusted_getenv("HF_HOME")) && *v) {
		base = strdup(v);
	} else if ((v = os_trusted_getenv("XDG_CACHE_HOME")) && *v) {
		base = model_join_path(v, "huggingface");
	} else if ((v = home_dir())) {
		dot = model_join_path(v, ".cache");
		base = dot ? model_join_path(dot, "huggingface") : NULL;
		free(dot);
	}
	char *expanded = base ? expand_path(base) : NULL;
	cache = expanded ? model_join_path(expanded, "hub") : NULL;
	free(base);
	free(expanded);
	return cache;
}

static bool same_ignoring_case(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a >= 'A' && *a <= 'Z' ? *a + 32 : *a) != (*b >= 'A' && *b <= 'Z' ? *b + 32 : *b))
			return false;
	return *a == *b;
}

/*
 * The repository of the cache's folder whose name is folder but for case,
 * malloc'd; NULL: none. The Hub takes a repository's id in any case, but
 * the cache keeps the case it was fetched by, and huggingface_hub fetches
 * meta-llama/meta-llama-3-8b into a folder of its own: one that is there
 * is suggested, not taken for what was typed.
 */
static char *cached_ignoring_case(const char *cache, const char *folder)
{
	struct name_list names = { 0 };
	char *repo = NULL;
	if (os_list_folders(cache, MODEL_MAX_FILES, &names) >= 0)
		for (size_t i = 0; i < names.count && !repo; i++)
			if (same_ignoring_case(names.names[i], folder))
				repo = repo_of_cache_folder(names.names[i]);
	name_list_clear(&names);
	return repo;
}

/* ORG/NAME (id; typed as typed) where no such path is: its folder in the local cache, never the network. */
static int resolve_repo(struct model_files *f, const char *typed, const char *id, struct model_error *e)
{
	char *cache = hf_cache_dir(), *root = NULL, folder[16 + HF_REPO_MAX];
	int r;
	if (!cache)
		return model_fail(e, -ENOENT, "%s: no such file or folder, and no Hugging Face cache to look in"
				  " (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are not set)", typed);
	const char *slash = strchr(id, '/');
	snprintf(folder, sizeof(folder), "models--%.*s--%s", (int)(slash - id), id, slash + 1);
	if (!(root = model_join_path(cache, folder))) {
		r = -ENOMEM;
	} else if (os_path_kind(root) != OS_PATH_DIRECTORY) {
		char *near = cached_ignoring_case(cache, folder);
		if (near)
			r = model_fail(e, -ENOENT, "%s: no such file or folder, nor in the Hugging Face cache (%s); the"
				       " cache holds %s (names are case-sensitive here)", typed, root, SHOWN(near));
		else
			r = model_fail(e, -ENOENT, "%s: no such file or folder, nor in the Hugging Face cache (%s)",
				       typed, root);
		free(near);
	} else {
		r = resolve_cache_root(f, typed, root, id, e);
	}
	free(cache);
	free(root);
	return r;
}

/*
 * A Hub address typed as MODEL (hf://ORG/NAME, https://huggingface.co/ORG/NAME):
 * the ORG/NAME in it, into id (size bytes), when it names one; else false.
 * hmn never fetches it: the hint says so and what to type instead.
 */
static bool hub_address_repo(const char *path, char *id, size_t size)
{
	static const char *const prefixes[] = { "hf://", "https://huggingface.co/", "http://huggingface.co/",
						"https://hf.co/", "huggingface.co/", NULL };
	for (const char *const *p = prefixes; *p; p++) {
		size_t n = strlen(*p);
		if (strncmp(path, *p, n))
			continue;
		const char *rest = path + n;
		if (!strncmp(rest, "models/", 7)) /* hf://models/ORG/NAME, huggingface_hub's HfFileSystem's */
			rest += 7;
		const char *slash = strchr(rest, '/');
		if (!slash)
			return false;
		/* ORG/NAME, less what follows it (/tree/main, ?library=..., #...). */
		size_t len = (size_t)(slash + 1 - rest) + strcspn(slash + 1, "/?#");
		if (len >= size)
			return false;
		memcpy(id, rest, len);
		id[len] = '\0';
		return model_hf_repo_id_valid(id);
	}
	return false;
}

/* ---- what was typed ----------------------------------------------------------------- */

/* A folder typed: a cache root (models--ORG--NAME holding snapshots/), else the folder itself. */
static int resolve_typed_folder(struct model_files *f, const char *path, struct model_error *e)
{
	char *full, *base = folder_component(path, &full), *repo = NULL, *snapshots = NULL;
	int r;
	free(full);
	if (base && (repo = repo_of_cache_folder(base)) && (snapshots = model_join_path(path, "snapshots")) &&
	    os_path_kind(snapshots) == OS_PATH_DIRECTORY) {
		r = resolve_cache_root(f, path, path, repo, e);
	} else if ((r = resolve_folder(f, path, path, true, e)) >= 0) {
		r = name_by_folder(f, path);
	}
	free(base);
	free(repo);
	free(snapshots);
	return r;
}

/* A file typed: what its first bytes say it is, else its name. */
static int resolve_typed_file(struct model_files *f, const char *path, struct model_error *e)
{
	struct reader reader;
	uint8_t magic[8] = { 0 };
	int r = os_file_open(path, &reader);
	if (r < 0)
		return model_open_failed(e, path, r);
	uint64_t size = reader.size;
	if (size)
		r = reader.read_at(reader.userdata, 0, magic, size < 8 ? (size_t)size : 8);
	os_file_close(&reader);
	if (r < 0)
		return model_fail(e, r, "%s: cannot read: %s", path, strerror(-r));
	/* A .gguf without the magic too: its reader says what it is (a Git LFS pointer) or is not. */
	if (!memcmp(magic, "GGUF", 4) || ends_with(path, ".gguf"))
		return resolve_gguf_parts(f, path, e);
	char *dir = dirname_of(path), *config = NULL;
	const char *base = model_base_name(path);
	if (!dir)
		return -ENOMEM;
	if (ends_with(path, ".safetensors")) {
		size_t prefix;
		unsigned count = model_split_name(base, ".safetensors", &prefix);
		f->source = MODEL_SOURCE_SAFETENSORS;
		f->one_file = true;
		if (!(config = model_join_path(dir, "config.json")) || !(f->dir = arena_strdup(f->arena, dir))) {
			r = -ENOMEM;
		} else if (os_path_kind(config) == OS_PATH_FILE && !(f->config = arena_strdup(f->arena, config))) {
			r = -ENOMEM;
		} else if (count > MODEL_MAX_FILES) {
			r = model_fail(e, -E2BIG, "%s: a set of %u shards (at most %u)", path, count, MODEL_MAX_FILES);
		} else if (!count) {
			r = add_file_in(f, dir, base);
		} else {
			/*
			 * A shard brings its whole set, as a split GGUF's part does (one
			 * alone priced a fraction of the model, the config's whole cache,
			 * and said it fit): each part by its own name, in order (not from
			 * a listing, which leaves out a dot-file's set).
			 */
			f->set_count = count;
			for (unsigned part = 1; part <= count && r >= 0; part++) {
				char *want = model_split_part(base, prefix, part, count, ".safetensors");
				r = want ? add_file_in(f, dir, want) : -ENOMEM;
				free(want);
			}
		}
	} else if (!strcmp(base, INDEX_NAME)) {
		r = resolve_folder(f, path, dir, false, e);
	} else if (ends_with(path, ".json") && !strcmp(base, "config.json")) {
		/* A config.json read as the folder's would be, alone. */
		f->source = MODEL_SOURCE_CONFIG;
		if (!(config = model_join_path(dir, "config.json")) || !(f->dir = arena_strdup(f->arena, dir)) ||
		    !(f->config = arena_strdup(f->arena, config)))
			r = -ENOMEM;
	} else if (ends_with(path, ".json")) {
		r = model_fail(e, -EINVAL, "%s: a JSON file that is not config.json", path);
	} else {
		r = model_fail(e, -EINVAL, "%s: not a model: neither GGUF, safetensors nor config.json", path);
	}
	if (r >= 0)
		r = name_by_folder(f, dir);
	free(dir);
	free(config);
	return r;
}

static int resolve_typed(struct model_files *files, const char *path, struct model_error *e)
{
	int kind = os_path_kind(path);
	if (kind < 0)
		return model_fail(e, kind, "%s: %s", path, strerror(-kind));
	if (kind == OS_PATH_DIRECTORY)
		return resolve_typed_folder(files, path, e);
	if (kind == OS_PATH_FILE)
		return resolve_typed_file(files, path, e);
	/* No such path: ORG/NAME is a Hugging Face repository, looked for in the local cache ("ORG/NAME/" too). */
	char *id = trimmed(path);
	if (!id)
		return -ENOMEM;
	int r;
	char repo[HF_REPO_MAX + 1];
	if (strchr(id, '/') && model_hf_repo_id_valid(id))
		r = resolve_repo(files, path, id, e);
	else if (hub_address_repo(id, repo, sizeof(repo)))
		r = model_fail(e, -ENOENT, "%s: no such file or folder: hmn never uses the network; %s, as ORG/NAME,"
			       " is looked for in the local Hugging Face cache (hf download %s puts it there)", path,
			       repo, repo);
	else
		r = model_fail(e, -ENOENT, "%s: no such file or folder", path);
	free(id);
	return r;
}

int model_resolve(const char *path, struct model_files *files, struct model_error *e)
{
	*files = (struct model_files){ 0 };
	if (!(files->arena = arena_new()))
		return -ENOMEM;
	int r = resolve_typed(files, path, e);
	if (r < 0)
		model_files_clear(files);
	return r;
}
