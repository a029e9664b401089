/*
 * lib/model: a checkpoint's quantization (model/quant.c), read from its
 * config.json's quantization_config (transformers' quant_method), MLX's
 * top-level quantization, or NVIDIA ModelOpt's hf_quant_config.json beside
 * it; and what a matrix of a given shape takes in it, its scales, zeros and
 * group indices included. Pure: cJSON in, numbers out.
 */
#ifndef HMN_MODEL_QUANT_H
#define HMN_MODEL_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model/model.h"

/* The classes of matrix a format may quantize or leave in the float type. */
enum quant_part {
	QUANT_EMBED,       /* token embeddings */
	QUANT_HEAD,        /* the output head (lm_head) */
	QUANT_ATTENTION,   /* q, k, v, o and latent attention's projections */
	QUANT_MLP,         /* a dense feed-forward, shared experts */
	QUANT_EXPERTS,     /* the routed experts */
	QUANT_ROUTER,      /* the experts' router (gate) */
	QUANT_VISION,      /* a vision tower and its projector */
	QUANT_PARTS
};

/* How a quantized matrix is laid out in the files. */
enum quant_layout {
	QUANT_LAYOUT_NONE,     /* not quantized: the float type */
	QUANT_LAYOUT_BNB4,     /* bitsandbytes nf4/fp4: 2 per byte, absmax per 64 */
	QUANT_LAYOUT_BNB8,     /* bitsandbytes LLM.int8(): int8, a float32 scale per row (SCB) */
	QUANT_LAYOUT_GPTQ,     /* int32 words along the input, zeros and f16 scales per group, g_idx */
	QUANT_LAYOUT_AWQ,      /* int32 words along the output, zeros and f16 scales per group */
	QUANT_LAYOUT_FP8,      /* one byte, float32 scales per block (or one per tensor) */
	QUANT_LAYOUT_MXFP4,    /* 16 bytes and one e8m0 scale per 32 */
	QUANT_LAYOUT_NVFP4,    /* 2 per byte, an fp8 scale per 16, float32 global scales */
	QUANT_LAYOUT_MLX,      /* uint32 words, a scale and a bias per group in the float type */
	QUANT_LAYOUT_PACKED,   /* compressed-tensors' pack-quantized: int32 words, scales per group */
	QUANT_LAYOUT_INT8,     /* one byte, a scale per row in the float type (naive-quantized) */
	QUANT_LAYOUT_EXL2,     /* a mean number of bits per weight */
};

#define QUANT_NAME_MAX 24

struct quant {
	char name[QUANT_NAME_MAX];   /* the format's name ("mxfp4", "gptq-int4"); "": not quantized */
	enum quant_layout layout;
	unsigned bits;               /* a packed weight's; exl2: hundredths of a bit */
	unsigned head_bits;          /* exl2's head, hundredths of a bit */
	uint64_t group;              /* weights per scale along the input; 0: one per output row */
	uint64_t block_out, block_in; /* fp8's blocks; 0: one scale per tensor */
	bool double_quant;           /* bitsandbytes' absmax quantized again */
	bool zeros;                  /* zero points beside the scales */
	bool row_scales;             /* fp8: a scale per output row in the float type (compressed-tensors' channel) */
	bool quantized[QUANT_PARTS]; /* which classes are in the format; the rest in the float type */
	enum hmn_dtype dtype;        /* the type a tally of types names it by (int4, i8, f8_e4m3, mxfp4) */
	char unknown[48];            /* a quant_method hmn does not know: priced in the float type */
	/*
	 * The lists of modules left in the float type (ignore,
	 * modules_to_not_convert, exclude_modules ...), borrowed from the
	 * JSON quant_read() was given: valid while it is; NULL: none.
	 * quant_module_bytes() matches a module's name against them.
	 */
	const cJSON *keep[2];
};

/*
 * The quantization root's config.json (and hf_quant_config.json,
 * modelopt, and AutoGPTQ's quantize_config.json, gptq, where they lie
 * beside it, read when config.json says nothing of it; NULL: none) describes, into
 * *ret_quant (untouched on failure): an empty name when it names none. A description that is not what its
 * format writes (bits of 99, a group of 0, a string for a number, a
 * quantization_config that is not an object) is malformed: -EINVAL, said
 * naming file and key. An unknown quant_method is no error: ret_quant->unknown
 * names it, for a warning.
 */
int quant_read(const char *file, const cJSON *root, const cJSON *modelopt, const cJSON *gptq,
	       struct quant *ret_quant, struct model_error *e);
/*
 * The bytes a matrix of in x out weights (in: its input width, along which
 * groups run) of class part takes, as the checkpoint stores it: the float
 * type's where the format leaves part unquantized. HMN_UNKNOWN on overflow.
 */
uint64_t quant_matrix_bytes(const struct quant *q, enum quant_part part, uint64_t in, uint64_t out,
			    enum hmn_dtype float_type);
/*
 * As quant_matrix_bytes(), for the module of that name as Hugging Face
 * names it ("model.layers.3.self_attn.q_proj", "lm_head"): the float type's
 * where the checkpoint's lists of modules left out name it (an exact name,
 * a glob, or a "re:" pattern), so that a list of single layers' modules
 * (llm-compressor writes every ignored module by name) is priced as it is.
 * module NULL: the class alone decides.
 */
uint64_t quant_module_bytes(const struct quant *q, enum quant_part part, const char *module, uint64_t in,
			    uint64_t out, enum hmn_dtype float_type);
/* Is a matrix of class part, of that module (NULL: any), in the format (not left in the float type)? */
bool quant_module_quantized(const struct quant *q, enum quant_part part, const char *module);
/* The bits of one packed weight in an int32 or uint32 word (GPTQ, AWQ, MLX, compressed-tensors); 0: none. */
unsigned quant_word_bits(const struct quant *q);

#endif
