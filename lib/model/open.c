/*
 * hmn_model_open(): reads what model_resolve() decided a path names (a
 * GGUF, split or not; .safetensors files; a folder's shards, or what its
 * index says of those not downloaded; a config.json alone), one file at a
 * time, through the OS layer and the pure readers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resolve.h"
#include "os/os.h"

/* The GGUF's parts, opened together and read as one model. */
static int read_gguf(const struct model_files *f, const char *path, struct hmn_model **ret, struct model_error *e)
{
	struct reader *parts = calloc(f->n_files, sizeof(*parts));
	size_t opened = 0;
	int r = parts ? 0 : -ENOMEM;
	for (size_t i = 0; i < f->n_files && r >= 0; i++) {
		if ((r = os_file_open(f->files[i], &parts[i])) < 0) {
			if (f->n_files > 1 && r == -ENOENT)
				r = model_fail(e, r, "%s: part %zu of %zu of this split GGUF is missing (%s)", path,
					       i + 1,
					       f->n_files, f->files[i]);
			else
				r = model_open_failed(e, f->files[i], r);
			break;
		}
		opened++;
	}
	if (r >= 0)
		r = gguf_read(parts, f->n_files, ret, e);
	for (size_t i = 0; i < opened; i++)
		os_file_close(&parts[i]);
	free(parts);
	return r;
}

/* One .safetensors file's header into b; f names its set, for what is said of one missing. */
static int read_shard(const struct model_files *f, const char *typed, const char *path, struct model_build *b,
		      struct model_error *e)
{
	struct reader r;
	/* Opened as it is read (no stat first: 163 shards for DeepSeek-V3); a folder of its name is said so. */
	int ret = os_file_open(path, &r);
	if (ret == -ENOENT && f->set_count)
		return model_fail(e, ret, "%s: %s, of its set of %u, is missing", typed, SHOWN(model_base_name(path)),
				  f->set_count);
	if (ret < 0)
		return model_open_failed(e, path, ret);
	ret = safetensors_read(&r, b, e);
	os_file_close(&r);
	b->m->n_files++;
	return ret;
}

/* Every file f names, into b, checked: each tensor once, some parameters. */
static int read_shards(const struct model_files *f, const char *typed, struct model_build *b,
		       struct model_error *e)
{
	int r = 0;
	for (size_t i = 0; i < f->n_files && r >= 0; i++)
		r = read_shard(f, typed, f->files[i], b, e);
	if (r < 0 || (r = model_build_check_names(b, typed, e)) < 0)
		return r;
	/*
	 * Weights files that hold no weights are broken, not a model of 0
	 * bytes; pricing the config instead would hide that the download is.
	 */
	if (!b->m->n_tensors)
		return model_fail(e, -EINVAL, "%s: its safetensors hold no tensors: no weights to price (a config.json"
				  " alone is priced from its shape)", typed);
	return model_build_check_parameters(b, typed, e);
}

/* The type most of b's bytes are in; HMN_DTYPE_NONE when it holds none. */
static enum hmn_dtype dominant_dtype(const struct model_build *b)
{
	enum hmn_dtype best = HMN_DTYPE_NONE;
	uint64_t most = 0;
	for (unsigned t = 0; t < sizeof(b->bytes_by_dtype) / sizeof(b->bytes_by_dtype[0]); t++)
		if (b->bytes_by_dtype[t] > most) {
			most = b->bytes_by_dtype[t];
			best = (enum hmn_dtype)t;
		}
	return best;
}

/*
 * m's parts (input, output, other, vision, each layer) as the config's shape
 * shares them out, scaled so that together they are total bytes: the
 * index's figure for the weights as stored, their split the shape's. Each
 * part is the difference of two running sums rounded down, the last one
 * total itself: the parts add up to total exactly.
 */
static void price_parts_at(struct hmn_model *m, uint64_t total)
{
	uint64_t implied = m->weights_bytes, sum = 0, before = 0;
	struct hmn_model_layer *const outside[] = { &m->input, &m->output, &m->other, &m->vision };
	const size_t n_outside = sizeof(outside) / sizeof(outside[0]);
	size_t n = (size_t)m->n_layer + n_outside;
	for (size_t i = 0; i < n; i++) {
		struct hmn_model_layer *l = i < n_outside ? outside[i] : &m->layers[i - n_outside];
		sum += l->weights_bytes; /* at most implied: their sum */
		uint64_t upto = i + 1 == n || !implied ? total
				: (uint64_t)((double)total * ((double)sum / (double)implied));
		if (upto > total)
			upto = total;
		if (upto < before)
			upto = before;
		l->weights_bytes = upto - before;
		before = upto;
	}
	m->weights_bytes = total;
}

/* "a, b, c and 5 more": the first names of a list, cut where a line would be long. */
static void list_some(char *out, size_t size, const char *const *names, size_t n)
{
	size_t at = 0, shown = n > 3 ? 2 : n;
	out[0] = '\0';
	for (size_t i = 0; i < shown && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s", i ? ", " : "", SHOWN(names[i]));
	if (n > shown && at < size)
		snprintf(out + at, size - at, " and %zu more", n - shown);
}

/*
 * The shards the index names that are not here (a download in progress,
 * or the index and config.json alone: hf download REPO config.json
 * model.safetensors.index.json): those present read, the weights priced
 * from metadata.total_size (which counts the tensors' bytes alone, as
 * transformers writes it), shared out among the parts as the config's
 * shape shares them; the parameters the shape's. b holds the model the
 * config implied, finished.
 */
static int price_from_index(const struct model_files *f, struct model_build *b,
			    const struct model_build *present, struct model_error *e)
{
	struct hmn_model *m = b->m;
	const struct safetensors_index *ix = &f->index;
	uint64_t total = ix->total_size, held = present ? present->m->weights_bytes : 0;
	char text[400], list[240];

	if (held > total)
		return model_fail(e, -EINVAL, "%s: metadata.total_size is %" PRIu64 " byte%s, less than the %" PRIu64
				  " its shards here hold: the index is malformed", f->index_path, total,
				  total == 1 ? "" : "s", held);
	if (b->unknown_family) {
		/*
		 * A model_type hmn does not know: its shape says nothing of the
		 * parameters, so they are the bytes over the type's (the shards'
		 * here, else torch_dtype's): exact for a float checkpoint.
		 */
		enum hmn_dtype dt = present && present->m->n_tensors ? dominant_dtype(present) : m->dtype;
		uint64_t one = dtype_price(dt, 1 << 20);
		if (one && one != HMN_UNKNOWN)
			m->parameters = (uint64_t)((double)total * (double)(1 << 20) / (double)one);
		price_parts_at(m, total);
		goto priced;
	}
	/* Under a bit a parameter no format stores weights in: the index is not this config's. */
	if (total < m->parameters / 8)
		return model_fail(e, -EINVAL, "%s: metadata.total_size is %" PRIu64 " byte%s, less than a bit a"
				  " parameter of config.json's shape (%" PRIu64 " parameters): the index is malformed",
				  f->index_path, total, total == 1 ? "" : "s", m->parameters);
	if (total / 8 > m->parameters) {
		snprintf(text, sizeof(text), "metadata.total_size is %" PRIu64 " bytes, more than 64 bits a parameter"
			 " of config.json's shape (%" PRIu64 "): the index and config.json may not be one model's",
			 total, m->parameters);
		model_add_warning(m, text);
	}
	/* The index's names say which layers have weights: fewer than the config's, and they are not one model. */
	long last = -1;
	for (size_t i = 0, at = 0; i < ix->n_tensors; i++) {
		const char *name = ix->tensor_names + at;
		size_t n = strlen(name);
		long layer = model_is_vision_tensor(name, n) ? -1 : model_layer_of(name, n);
		last = layer > last ? layer : last;
		at += n + 1;
	}
	if (last >= 0 && (uint64_t)last + 1 < m->n_layer) {
		snprintf(text, sizeof(text), "the index names tensors of layers up to %ld, config.json %u layer%s:"
			 " they may not be one model's", last, m->n_layer, m->n_layer == 1 ? "" : "s");
		model_add_warning(m, text);
	}
	price_parts_at(m, total);
priced:
	if (present && present->m->n_tensors) {
		m->dtype = dominant_dtype(present); /* where shards exist their headers are the truth */
		m->n_files = present->m->n_files;
	}
	list_some(list, sizeof(list), f->missing, f->n_missing);
	char lfs[80] = "";
	if (f->n_lfs_pointers == f->n_missing)
		snprintf(lfs, sizeof(lfs), "%s", f->n_missing == 1 ? ", a Git LFS pointer (git lfs pull fetches it)"
							     : ", Git LFS pointers (git lfs pull fetches them)");
	else if (f->n_lfs_pointers)
		snprintf(lfs, sizeof(lfs), ", %zu of them %s (git lfs pull fetches %s)", f->n_lfs_pointers,
			 f->n_lfs_pointers == 1 ? "a Git LFS pointer" : "Git LFS pointers",
			 f->n_lfs_pointers == 1 ? "it" : "them");
	snprintf(text, sizeof(text), "%zu of %zu shard%s not downloaded (%s%s): %s priced from the index's"
		 " total_size", f->n_missing, ix->n_shards, ix->n_shards == 1 ? "" : "s", list, lfs,
		 f->n_missing == 1 ? "its weights" : "their weights");
	model_add_note(m, text);
	return 0;
}

/*
 * A quantizer's own description beside config, when there is one: NVIDIA
 * ModelOpt's hf_quant_config.json, AutoGPTQ's quantize_config.json (older
 * GPTQ repositories say their bits there alone). *ret_text is malloc'd,
 * NULL when there is none.
 */
static int read_beside(const char *config, const char *name, char **ret_text, size_t *ret_len, struct model_error *e)
{
	size_t dir_len = (size_t)(model_base_name(config) - config);
	char *path = malloc(dir_len + strlen(name) + 1);
	int r = 0;
	if (!path)
		return -ENOMEM;
	memcpy(path, config, dir_len);
	strcpy(path + dir_len, name);
	if (os_path_kind(path) == OS_PATH_FILE)
		r = model_read_small(path, MODEL_MAX_TEXT, ret_text, ret_len, e);
	free(path);
	return r < 0 ? r : 0;
}

/* Does the index name an image tower's tensors (whose bytes its total_size then counts)? */
static bool index_has_vision(const struct safetensors_index *ix)
{
	for (size_t i = 0, at = 0; i < ix->n_tensors; i++) {
		size_t n = strlen(ix->tensor_names + at);
		if (model_is_vision_tensor(ix->tensor_names + at, n))
			return true;
		at += n + 1;
	}
	return false;
}

/* A folder's safetensors (or one file of them), or its config.json alone, with the config. */
static int read_hf(const struct model_files *f, const char *typed, struct hmn_model **ret, struct model_error *e)
{
	bool planned = f->index_path && f->n_missing; /* the index's total_size prices what is not here */
	bool alone = f->source == MODEL_SOURCE_CONFIG || planned;
	struct model_build b, present;
	bool have_present = false;
	char *text = NULL, *modelopt = NULL, *gptq = NULL;
	size_t len = 0;
	int r;

	if ((r = model_build_start(&b, NULL)) < 0)
		return r;
	b.m->format = f->source == MODEL_SOURCE_CONFIG ? HMN_MODEL_CONFIG : HMN_MODEL_SAFETENSORS;
	b.m->path = arena_strdup(b.m->arena, typed);
	b.vision_in_weights = planned && index_has_vision(&f->index);
	b.priced_by_index = planned;
	if (planned && f->n_files) {
		if ((r = model_build_start(&present, NULL)) < 0)
			goto fail;
		have_present = true;
		if ((r = read_shards(f, typed, &present, e)) < 0)
			goto fail;
	} else if (!alone && (r = read_shards(f, typed, &b, e)) < 0) {
		goto fail;
	}
	/* One file named: its header first, so that a broken one is what is said of it. */
	if (!f->config) {
		r = model_fail(e, -ENOENT, "%s: no config.json in %s: hmn needs the model's architecture", typed,
			       f->dir);
		goto fail;
	}
	if ((r = model_read_small(f->config, MODEL_MAX_TEXT, &text, &len, e)) < 0 ||
	    (r = read_beside(f->config, "hf_quant_config.json", &modelopt, &b.modelopt_len, e)) < 0 ||
	    (r = read_beside(f->config, "quantize_config.json", &gptq, &b.gptq_len, e)) < 0)
		goto fail;
	b.modelopt = modelopt;
	b.gptq = gptq;
	if ((r = config_read(f->config, text, len, &b, alone, e)) < 0)
		goto fail;
	if (planned && (r = price_from_index(f, &b, have_present ? &present : NULL, e)) < 0)
		goto fail;
	if (have_present)
		model_build_abort(&present);
	free(text);
	free(modelopt);
	free(gptq);
	*ret = b.m;
	return 0;
fail:
	if (have_present)
		model_build_abort(&present);
	model_build_abort(&b);
	free(text);
	free(modelopt);
	free(gptq);
	return r;
}

/*
 * ---- a GGUF folder's vision projector ----
 *
 * llama.cpp loads a vision model's mmproj-*.gguf beside the model
 * (llama-server --mmproj, or -hf, which fetches the one its repository
 * names): a folder holding both is priced as both, the projector as the
 * vision part. A .gguf named alone is the model alone (llama.cpp needs
 * --mmproj said): resolution sets projectors aside only in a folder.
 * Repositories ship the projector in several types side by side
 * (mmproj-F16, -BF16, -F32): one is loaded, so one is priced: f16 where
 * there is one (convert_hf_to_gguf.py's default type), else the first by
 * name; which one is said in a note.
 */
static const char *projector_of(const struct model_files *f, size_t *ret_count)
{
	const char *first = NULL, *f16 = NULL;
	size_t count = 0;
	for (size_t i = 0; i < f->n_aside; i++) {
		const char *name = f->aside[i].file;
		if (f->aside[i].reason != MODEL_ASIDE_PROJECTOR)
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

static int add_projector(const struct model_files *f, struct hmn_model *m)
{
	size_t count;
	const char *name = projector_of(f, &count);
	if (!name)
		return 0;
	struct reader reader;
	char *path = model_join_path(f->dir, name);
	if (!path)
		return -ENOMEM;
	/*
	 * One that cannot be read (a Git LFS pointer, a link whose blob is
	 * gone, another model's GGUF) leaves the model as it is, said: the
	 * model is still what was asked of, and --text-only needs no projector.
	 */
	char why[300] = "";
	struct model_error projector_e = { why, sizeof(why) };
	int r = os_file_open(path, &reader);
	if (r < 0) {
		r = model_open_failed(&projector_e, path, r);
	} else {
		r = gguf_read_projector(&reader, m, &projector_e);
		os_file_close(&reader);
	}
	free(path);
	if (r == -ENOMEM)
		return r;
	char text[400];
	if (r < 0) {
		snprintf(text, sizeof(text), "its vision projector cannot be read, so the vision part is left out: %s",
			 why);
		model_add_warning(m, text);
	} else if (count > 1) {
		/* True with --text-only too: which one is the vision part, where there is one. */
		snprintf(text, sizeof(text), "the vision projector is %s, one of %zu beside the model", SHOWN(name),
			 count);
		model_add_note(m, text);
	}
	return 0;
}

int hmn_model_open(const char *path, struct hmn_model **ret_model, char *why, size_t why_size)
{
	struct model_error e = { why, why_size };
	struct model_files f;
	struct hmn_model *m = NULL;
	int r;

	if (why && why_size)
		why[0] = '\0';
	if (!path || !ret_model)
		return -EINVAL;
	r = model_resolve(path, &f, &e);
	if (r >= 0)
		r = f.source == MODEL_SOURCE_GGUF ? read_gguf(&f, path, &m, &e) : read_hf(&f, path, &m, &e);
	if (r >= 0 && f.source == MODEL_SOURCE_GGUF && (r = add_projector(&f, m)) < 0)
		m = hmn_model_free(m);
	if (r >= 0) {
		/* The path the caller gave, not the first part's nor the snapshot's. */
		m->path = arena_strdup(m->arena, path);
		if (f.name && (f.repo_named || !m->name))
			m->name = arena_strdup(m->arena, f.name);
		if (f.note[0])
			model_add_note(m, f.note);
		*ret_model = m;
	}
	model_files_clear(&f);
	return r < 0 ? r : 0;
}
