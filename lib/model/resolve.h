/*
 * lib/model/resolve.c: what MODEL, as typed, names, decided in one step
 * before any header is read: which files to read and in which order, the
 * folder's config.json and model.safetensors.index.json, the shards the
 * index names that are not there (a download in progress), the files set
 * aside and why, and the name the model goes by. A Hugging Face cache root
 * (models--ORG--NAME) is followed through refs/main to its snapshot, and
 * ORG/NAME typed where no such path is is looked up in the local cache
 * ($HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub,
 * $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub, as
 * huggingface_hub finds it; never the network). open.c then reads what it
 * decided. Private to lib/model (and its unit tests).
 */
#ifndef HMN_MODEL_RESOLVE_H
#define HMN_MODEL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

enum model_source {
	MODEL_SOURCE_GGUF = 1,       /* files: a GGUF's parts, in order (one for an unsplit file) */
	MODEL_SOURCE_SAFETENSORS,    /* files: .safetensors files; the index's missing shards in missing */
	MODEL_SOURCE_CONFIG,         /* a config.json alone: no weights to read */
};

/* Why a file beside the model is not read as its weights. */
enum model_aside_reason {
	MODEL_ASIDE_ADAPTER,         /* a LoRA's adapter_*.safetensors: the model it adapts is elsewhere */
	MODEL_ASIDE_COPY,            /* a second copy of the weights (consolidated.safetensors beside model.*) */
	MODEL_ASIDE_PROJECTOR,       /* llama.cpp's *mmproj*.gguf: a vision model's projector, loaded beside it */
};

struct model_aside {
	const char *file;            /* its name in dir */
	enum model_aside_reason reason;
};

/* What model_resolve() decided. Strings in arena; the arrays malloc'd; model_files_clear() frees all. */
struct model_files {
	enum model_source source;
	const char *dir;             /* the folder the files are in (a cache snapshot's, when followed) */
	const char *config;          /* dir's config.json; NULL where there is none (one file named alone) */
	const char *index_path;      /* dir's model.safetensors.index.json where it names the weights; else NULL */
	struct safetensors_index index; /* what the index says, where index_path */
	const char **files;          /* paths, to read in this order */
	size_t n_files, files_capacity;
	const char **missing;        /* the index's shards that are not there (names), in its order */
	size_t n_missing, missing_capacity;
	size_t n_lfs_pointers;       /* of them, Git LFS pointers where the shard should be (a clone without git-lfs) */
	struct model_aside *aside;   /* files beside the weights left out, in their names' order */
	size_t n_aside, aside_capacity;
	/* The model's name when its files give none: the folder's, or ORG/NAME; NULL: none. */
	const char *name;
	/* What resolution says of itself (a snapshot taken without refs/main); "": nothing. */
	char note[120];
	bool repo_named;             /* name is a Hugging Face repository's: it stands over a GGUF's general.name */
	/* One .safetensors file named: read first, config.json required after; a shard brings its set. */
	bool one_file;
	unsigned set_count;          /* that shard's set: how many files (0: not a set) */
	struct hmn_arena *arena;
};

/*
 * Decides what path names into *files, which model_files_clear() frees
 * after; on failure it is left empty. Reads no header: what a file is by
 * its first bytes and its name, the index's text, refs/main. 0, or
 * hmn_model_open()'s errors, with one line in e.
 */
int model_resolve(const char *path, struct model_files *files, struct model_error *e);
void model_files_clear(struct model_files *f);
/* "LoRA adapter", "second copy of the weights", "vision projector". */
const char *model_aside_reason_name(enum model_aside_reason reason);
/*
 * Is id a Hugging Face repository id as huggingface_hub's validate_repo_id
 * takes it: NAME or ORG/NAME, each of letters, digits, '-', '_' and '.',
 * neither starting nor ending with '-' or '.', no "--" nor "..", 96 at most?
 */
bool model_hf_repo_id_valid(const char *id);
/*
 * dir/name, malloc'd: one separator between them, whatever dir ends in
 * ("float/" as typed); Windows' own, which a \\?\ path needs.
 */
char *model_join_path(const char *dir, const char *name);
/* path's last component (after its last '/', and '\\' on Windows): a pointer into path. */
const char *model_base_name(const char *path);
/* Says why path could not be opened (os_file_open()'s r) into e: r. */
int model_open_failed(struct model_error *e, const char *path, int r);
/* A small text file whole (config.json, an index, refs/main), NUL-terminated, malloc'd: at most max bytes. */
int model_read_small(const char *path, size_t max, char **ret_text, size_t *ret_len, struct model_error *e);
/* Does a .gguf's name say it is llama.cpp's vision projector: "mmproj" anywhere in it, in any case? */
bool model_is_projector_name(const char *name);

#endif
