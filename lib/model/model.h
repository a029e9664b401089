/*
 * lib/model: hmn-model.h — models and the memory they need. The readers
 * (GGUF, safetensors, config.json) work over a read-at-offset interface
 * (util/reader.h), so that the parsing is pure (memory buffers in the tests
 * and fuzzers) and only opening a path is the OS's business (model/open.c
 * over os/os.h's files). model/ uses lib/util and os/'s file reading alone:
 * no GPU, no context, no command.
 *
 * Inside it, calls go one way: the tables at the bottom (dtype.c, arch.c),
 * model.c's builder and the shape's rules on them, the readers (gguf.c,
 * safetensors.c, config.c) on those; resolve.c decides which files a
 * typed MODEL names (and reads the index), open.c reads them through the
 * readers; estimate.c needs the types alone.
 *
 * This header is private to lib/model (and its unit tests and fuzzers).
 */
#ifndef HMN_MODEL_PRIVATE_H
#define HMN_MODEL_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-model.h"
#include "model/dtype.h" /* the element types and checked arithmetic, below everything here */
#include "model/arch.h"  /* the one table of architecture facts, below the readers */
#include "model/ftype.h" /* llama.cpp's file types: what its quantizer tells apart in a model */
#include "util/arena.h"
#include "util/reader.h"
#include "util/text.h" /* printable_name(): what of a name a message may show */
#include "util/util.h"

/* Bounds no real model comes near; anything past them is hostile or broken. */
#define MODEL_MAX_LAYERS 4096u           /* llama.cpp's own bound is 512 */
#define MODEL_MAX_TENSORS 4194304u       /* DeepSeek-V3: 91,991 in 163 files */
#define MODEL_MAX_FILES 4096u
/* A config's widths and counts (hidden, feed-forward, heads, vocabulary): the largest seen are ~10^5. */
#define MODEL_MAX_WIDTH (1u << 24)
#define MODEL_MAX_CONTEXT UINT32_MAX     /* trained tokens: the longest seen are ~10^7 */
#define GGUF_MAX_HEADER (512u << 20)     /* metadata and tensor infos; the largest seen are ~10 MiB */
#define GGUF_MAX_KV 1048576u
#define GGUF_MAX_NAME 256u               /* a tensor's name (ggml: 64) */
#define GGUF_MAX_DEPTH 4u                /* arrays inside arrays */
#define SAFETENSORS_MAX_HEADER 100000000u /* the reference reader's bound */
/*
 * JSON's structural characters ({ [ , :) in one safetensors header: each
 * costs cJSON about 80 bytes, so this bounds the parse near 80 MiB however
 * the 100 MB are spent. A tensor takes about 11 ({"dtype":..,"shape":[..],
 * "data_offsets":[..]}): room for some 95,000 tensors in one file, where the
 * largest shards seen hold a few thousand.
 */
#define SAFETENSORS_MAX_STRUCTURE (1u << 20)
#define MODEL_MAX_TEXT (64u << 20)       /* config.json, model.safetensors.index.json */
/* An index's metadata.total_size: a pebibyte, where the largest checkpoints published are ~2 TB. */
#define MODEL_MAX_TOTAL_SIZE (1ull << 50)

/* ---- model.c: what the readers build ---- */

/* One explanation, formatted once, kept for the caller: one line, printable (printable_name()). */
struct model_error {
	char *buf;
	size_t size;
};
int model_fail(struct model_error *e, int r, const char *fmt, ...) HMN_PRINTF(3, 4);

/*
 * A name from a file (a key, a tensor's or a file's name) as a message
 * shows it: cut to a readable length, each control character and byte of
 * invalid UTF-8 a '?'. The buffer lives to the end of the enclosing block.
 */
#define SHOWN(s) printable_name((s), (char[72]){ 0 }, 72)

/* Per-layer sums while tensors stream past, before the layer count is final. */
struct model_build {
	struct hmn_model *m;
	struct hmn_model_layer *layers;
	struct model_quant_roles *roles; /* beside layers, layers_capacity of them */
	struct model_quant_roles parts[3]; /* input, output, other */
	bool torch_order;               /* dims as safetensors writes them: the row last */
	size_t n_layers_seen, layers_capacity;
	uint64_t bytes_by_dtype[128];   /* which type holds most of the weights */
	uint64_t parameters;
	uint64_t vision_parameters;     /* of them, the image tower's and projector's */
	bool all_vision;                /* every tensor is the tower's (a GGUF projector, mmproj-*.gguf) */
	/* The weights priced elsewhere (an index's total_size) hold an image tower: one unshaped stays in them. */
	bool vision_in_weights;
	/*
	 * In: the weights are priced from an index's total_size (open.c), so a
	 * model_type hmn does not know is priced too, not refused. Out: it was
	 * one (config_read): its shape says nothing of the parameters.
	 */
	bool priced_by_index, unknown_family;
	bool saw_output_head;           /* an output matrix of its own: not tied to the embeddings */
	/* Every tensor's name, NUL-terminated one after another: a name met twice is refused. */
	char *names;
	size_t names_len, names_capacity;
	/*
	 * Elements of packed int32/uint32 weights (GPTQ's and AWQ's qweight,
	 * MLX's uint32 weight, compressed-tensors' weight_packed): counted as
	 * 8 weights each (4 bits) until the config says its bits.
	 */
	uint64_t packed_words;
	/*
	 * The texts beside config.json, for config_read(); NULL: none.
	 * hf_quant_config.json (NVIDIA ModelOpt), quantize_config.json (AutoGPTQ).
	 */
	const char *modelopt, *gptq;
	size_t modelopt_len, gptq_len;
};
int model_build_start(struct model_build *b, struct hmn_model **ret_model);
/*
 * One tensor: name (its layer, or the embeddings, the output), type, shape
 * and its bytes as stored (padded, where the file pads).
 */
int model_build_tensor(struct model_build *b, const char *name, size_t name_len,
		       enum hmn_dtype dtype, const uint64_t *dims, size_t n_dims, uint64_t bytes);
/*
 * The layer a tensor's name places it in: GGUF's "blk.N.", safetensors'
 * "layers.N.", "h.N.", "blocks.N.", "layer.N." anywhere in the name; -1
 * for none (or a number past MODEL_MAX_LAYERS).
 */
long model_layer_of(const char *name, size_t n);
/* Is the tensor named s (n bytes) a vision-language model's image tower's or projector's? */
bool model_is_vision_tensor(const char *s, size_t n);
/*
 * The packed words' weights at bits a weight (0: the format packs none),
 * in place of the 4 they were counted at.
 */
void model_build_packed_bits(struct model_build *b, unsigned bits);
/* A tensor named twice (in one file or across a model's files): -EINVAL, said for where. */
int model_build_check_names(struct model_build *b, const char *where, struct model_error *e);
/*
 * Tensors that hold no parameters at all (each with a dimension of 0): -EINVAL,
 * said for where. Priced at 0 bytes, such a model would fit anywhere.
 */
int model_build_check_parameters(const struct model_build *b, const char *where, struct model_error *e);
/* Settles the layer count and each layer's kind; the model is b->m's, or freed on failure. */
int model_build_finish(struct model_build *b, struct model_error *e);
void model_build_abort(struct model_build *b);

/*
 * m's warning: its architecture (what: "model_type", "architecture") is not
 * one hmn knows; its weights are its headers', its KV cache an upper bound.
 */
void model_warn_unknown_architecture(struct hmn_model *m, const char *what, const char *weights_from);
/* Adds text to m's warning (after the one it has, if any: "first; text"). */
void model_add_warning(struct hmn_model *m, const char *text);
/* Adds text to m's note (hmn_model.note: said, not doubted), as model_add_warning() does. */
void model_add_note(struct hmn_model *m, const char *text);
/* Sets layers' kinds from the model's window and pattern; recurrent: every layer keeps a state. */
void model_set_layer_kinds(struct hmn_model *m, bool recurrent, uint32_t swa_pattern, const bool *swa_layers,
			   size_t n_swa_layers);

/*
 * The rules a shape holds together by, whichever reader read it: each
 * reader checks its keys' bounds as it reads them, and these where it
 * has the numbers they relate. The messages name the keys as the reader's
 * file does: config.json's own (num_attention_heads), or GGUF's after its
 * architecture (llama.attention.head_count).
 */
struct shape_names {
	const char *file;            /* the file a message names */
	const char *prefix;          /* before each key: GGUF's "llama.", config.json's "" */
	const char *heads, *kv_heads, *width, *head_dim, *experts_used;
};
/*
 * The KV heads are shared by groups of heads: they divide them (0 KV heads:
 * no cache). layer: which, for the message; -1 for the model's.
 */
int model_check_kv_heads(const struct shape_names *n, uint64_t heads, uint64_t kv_heads, long layer,
			 struct model_error *e);
/*
 * Heads that are not given a width of their own (head_dim) split the width,
 * so they divide it; latent attention's heads are as wide as its own keys say.
 */
int model_check_heads_split(const struct shape_names *n, uint64_t heads, uint64_t width, bool head_dim_said,
			    bool latent, struct model_error *e);
/* The experts a token uses are some of the experts (0 experts: a dense model). */
int model_check_experts(const struct shape_names *n, uint64_t experts, uint64_t used, struct model_error *e);

/* ---- gguf.c ---- */
/* Reads n parts of one GGUF model (one for an unsplit file), in order. */
int gguf_read(const struct reader *parts, size_t n, struct hmn_model **ret_model,
	      struct model_error *e);
/*
 * The split count a file's name says, for names ending ext ("x-00001-of-00003.gguf":
 * 3, and the prefix's length); 0 when none.
 */
unsigned model_split_name(const char *path, const char *ext, size_t *ret_prefix_len);
/* Part part of count of the set name begins (its first prefix_len bytes): PREFIX-00002-of-00003EXT, malloc'd. */
char *model_split_part(const char *name, size_t prefix_len, unsigned part, unsigned count, const char *ext);

/*
 * A vision model's projector, llama.cpp's mmproj-*.gguf (general.architecture
 * "clip"): its tensors added to m's vision part, its parameters and bytes
 * to m's. Another architecture is refused: not a projector.
 */
int gguf_read_projector(const struct reader *r, struct hmn_model *m, struct model_error *e);

/* ---- safetensors.c ---- */
/* Adds one safetensors file's tensors to b. */
int safetensors_read(const struct reader *r, struct model_build *b, struct model_error *e);
/*
 * model.safetensors.index.json as read: its shards, its metadata.total_size
 * and its weight_map's tensor names (which tensors a model has, in which
 * shard: for what a planner may want of them before the shards are there).
 */
struct safetensors_index {
	char **shards;                  /* plain file names (checked), each once, in the order first met; malloc'd */
	size_t n_shards;
	enum { INDEX_TOTAL_ABSENT, INDEX_TOTAL_VALID, INDEX_TOTAL_INVALID } total;
	uint64_t total_size;            /* INDEX_TOTAL_VALID: the tensors' bytes, 1 to MODEL_MAX_TOTAL_SIZE */
	char total_problem[96];         /* INDEX_TOTAL_INVALID: what is wrong with it ("-5 is not ...") */
	/* The tensors' names, NUL-terminated one after another, in the map's order; malloc'd. */
	char *tensor_names;
	size_t names_len, names_capacity, n_tensors;
	/*
	 * Each tensor's shard, an index into shards; malloc'd. Nothing reads it
	 * yet: kept for the quantization work (which shard holds a module's
	 * scales), and checked by test-resolve and fuzz-safetensors.
	 */
	uint32_t *tensor_shard;
	size_t shard_capacity;
};
/*
 * Reads an index (path names it in messages) into *ret: 0, or -EINVAL with
 * one line in e (no weight_map object, a shard that is no plain
 * .safetensors name beside it, no shard, more than MODEL_MAX_TENSORS
 * tensors or MODEL_MAX_FILES shards), -ENOMEM.
 */
int safetensors_index_read(const char *path, const char *text, size_t len, struct safetensors_index *ret,
			   struct model_error *e);
void safetensors_index_clear(struct safetensors_index *ix);

/* ---- config.c ---- */
/*
 * Reads a Hugging Face config.json (file: its name in messages) into b's
 * model: the architecture, its shape, trained context and sliding windows;
 * with implies_tensors (a config.json alone), the tensors its shape implies. Then finishes b (the
 * tensors of a folder's shards must be in it before).
 */
/*
 * JSON as Python's json module writes it: the bare words Infinity,
 * -Infinity and NaN that it allows (Nemotron-H's config.json holds
 * Infinity) made numbers cJSON reads, 1e999 (an infinity), -1e999 and null,
 * outside strings only. NULL when text has none (read it as it is) or on
 * ENOMEM; else a malloc'd copy, NUL-terminated, its length in *ret_len.
 */
char *json_python_words(const char *text, size_t len, size_t *ret_len);
/*
 * Is r a Git LFS pointer (a clone without git-lfs: a few lines of text
 * where the weights should be)? Then fails e saying so: -EINVAL.
 */
int model_fail_if_lfs_pointer(const struct reader *r, struct model_error *e);
/* Is the file at path a Git LFS pointer? False where it cannot be opened (its reader says why later). */
bool model_path_is_lfs_pointer(const char *path);

/* ---- vision.c ---- */
struct cJSON;
/*
 * config.json's vision_config (root: the whole config; file: its name in
 * messages), when it has one: the tensors of the image tower and projector
 * its shape implies, in dtype (its linear layers in q's format where q, the
 * checkpoint's quantization, quantizes the tower: NULL, none), into b's vision part; text_width is the text
 * model's, which the projector maps into. A family hmn does not price is
 * said in the model's warning. 0, or -EINVAL said naming the key.
 */
struct quant;
int vision_read(const struct cJSON *root, const char *file, uint64_t text_width, enum hmn_dtype dtype,
		const struct quant *q, struct model_build *b, struct model_error *e);

int config_read(const char *file, const char *text, size_t len, struct model_build *b, bool implies_tensors,
		struct model_error *e);

#endif
