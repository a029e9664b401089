/*
 * libhmn — models and the memory they need (hmn fit).
 *
 * Everything here is arithmetic over a model's headers: no GPU, no context,
 * no allocation of a size a file claims. Read a model once, then ask:
 *
 *     struct hmn_model *m = NULL;
 *     char why[256];
 *     if (hmn_model_open("llama-3-8b.Q4_K_M.gguf", &m, why, sizeof(why)) < 0)
 *         ...print why...
 *     struct hmn_fit_request req;
 *     hmn_fit_request_init(&req);
 *     req.context = 8192;
 *     struct hmn_fit_parts parts;
 *     hmn_fit_estimate(m, &req, &parts);
 *     hmn_model_free(m);
 */

#ifndef HMN_MODEL_H
#define HMN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The type of a tensor's elements. GGUF's types keep ggml's own ids (0-39); safetensors' types with no
 * ggml id, and int4 (accelerate's 4 bits a parameter), come after.
 */
enum hmn_dtype {
	HMN_DTYPE_F32 = 0, HMN_DTYPE_F16 = 1, HMN_DTYPE_Q4_0 = 2, HMN_DTYPE_Q4_1 = 3,
	HMN_DTYPE_Q5_0 = 6, HMN_DTYPE_Q5_1 = 7, HMN_DTYPE_Q8_0 = 8, HMN_DTYPE_Q8_1 = 9,
	HMN_DTYPE_Q2_K = 10, HMN_DTYPE_Q3_K = 11, HMN_DTYPE_Q4_K = 12, HMN_DTYPE_Q5_K = 13,
	HMN_DTYPE_Q6_K = 14, HMN_DTYPE_Q8_K = 15, HMN_DTYPE_IQ2_XXS = 16, HMN_DTYPE_IQ2_XS = 17,
	HMN_DTYPE_IQ3_XXS = 18, HMN_DTYPE_IQ1_S = 19, HMN_DTYPE_IQ4_NL = 20, HMN_DTYPE_IQ3_S = 21,
	HMN_DTYPE_IQ2_S = 22, HMN_DTYPE_IQ4_XS = 23, HMN_DTYPE_I8 = 24, HMN_DTYPE_I16 = 25,
	HMN_DTYPE_I32 = 26, HMN_DTYPE_I64 = 27, HMN_DTYPE_F64 = 28, HMN_DTYPE_IQ1_M = 29,
	HMN_DTYPE_BF16 = 30, HMN_DTYPE_TQ1_0 = 34, HMN_DTYPE_TQ2_0 = 35, HMN_DTYPE_MXFP4 = 39,
	/* safetensors' types beyond ggml's */
	HMN_DTYPE_BOOL = 64, HMN_DTYPE_U8, HMN_DTYPE_U16, HMN_DTYPE_U32, HMN_DTYPE_U64,
	HMN_DTYPE_F8_E4M3, HMN_DTYPE_F8_E5M2, HMN_DTYPE_F8_E8M0, HMN_DTYPE_F8_E4M3FNUZ,
	HMN_DTYPE_F8_E5M2FNUZ, HMN_DTYPE_C64, HMN_DTYPE_F4, HMN_DTYPE_F6_E2M3, HMN_DTYPE_F6_E3M2,
	HMN_DTYPE_INT4,     /* int4 as --dtype plans it: 4 bits a parameter, no scales */
	/* a quantized checkpoint's bits a weight (GPTQ 3-bit, MLX 6-bit), named alone: no --dtype */
	HMN_DTYPE_INT2, HMN_DTYPE_INT3, HMN_DTYPE_INT5, HMN_DTYPE_INT6, HMN_DTYPE_INT7,
	/* llama.cpp's file types (256 + its LLAMA_FTYPE_MOSTLY_* ids): mixes, priced per tensor; --dtype's alone */
	HMN_DTYPE_FILE_Q4_0 = 258, HMN_DTYPE_FILE_Q4_1 = 259, HMN_DTYPE_FILE_Q8_0 = 263,
	HMN_DTYPE_FILE_Q5_0 = 264, HMN_DTYPE_FILE_Q5_1 = 265, HMN_DTYPE_FILE_Q2_K = 266,
	HMN_DTYPE_FILE_Q3_K_S = 267, HMN_DTYPE_FILE_Q3_K_M = 268, HMN_DTYPE_FILE_Q3_K_L = 269,
	HMN_DTYPE_FILE_Q4_K_S = 270, HMN_DTYPE_FILE_Q4_K_M = 271, HMN_DTYPE_FILE_Q5_K_S = 272,
	HMN_DTYPE_FILE_Q5_K_M = 273, HMN_DTYPE_FILE_Q6_K = 274, HMN_DTYPE_FILE_IQ2_XXS = 275,
	HMN_DTYPE_FILE_IQ2_XS = 276, HMN_DTYPE_FILE_Q2_K_S = 277, HMN_DTYPE_FILE_IQ3_XS = 278,
	HMN_DTYPE_FILE_IQ3_XXS = 279, HMN_DTYPE_FILE_IQ1_S = 280, HMN_DTYPE_FILE_IQ4_NL = 281,
	HMN_DTYPE_FILE_IQ3_S = 282, HMN_DTYPE_FILE_IQ3_M = 283, HMN_DTYPE_FILE_IQ2_S = 284,
	HMN_DTYPE_FILE_IQ2_M = 285, HMN_DTYPE_FILE_IQ4_XS = 286, HMN_DTYPE_FILE_IQ1_M = 287,
	HMN_DTYPE_FILE_TQ1_0 = 292, HMN_DTYPE_FILE_TQ2_0 = 293, HMN_DTYPE_FILE_MXFP4_MOE = 294,
	HMN_DTYPE_NONE = -1 /* "as in the file" */
};

/*
 * The type called name: a GGUF type ("q4_k", "Q4_K_M" is not one), a
 * safetensors dtype ("BF16", "F8_E4M3"), or one of --dtype's words ("fp8",
 * "int8", "int4", "fp16", "fp32"); case-insensitive. -EINVAL when unknown.
 */
int hmn_dtype_from_name(const char *name, enum hmn_dtype *ret_dtype);
/*
 * What --dtype means by name: a llama.cpp file type by llama-quantize's name
 * ("Q4_K_M", "q5_k_s"; "Q8_0", "IQ4_XS" too: what a GGUF of that name holds),
 * else hmn_dtype_from_name()'s ("q4_k", "bf16"). -EINVAL when unknown.
 */
int hmn_weights_dtype_from_name(const char *name, enum hmn_dtype *ret_dtype);
/* Is dtype one of llama.cpp's file types (a mix, priced per tensor)? */
bool hmn_dtype_is_file_type(enum hmn_dtype dtype);
/* Its name in lower case ("q4_k", "bf16", "f8_e4m3", "q4_k_m"); NULL for a value that is none. */
const char *hmn_dtype_name(enum hmn_dtype dtype);
/* Elements a block holds and the bytes of one block (F16: 1 and 2; Q4_K: 256 and 144; F4: 2 and 1). */
int hmn_dtype_block(enum hmn_dtype dtype, uint32_t *ret_elements, uint32_t *ret_bytes);

/*
 * The bytes of a tensor of n_dims dimensions (dims[0] the innermost, as GGUF
 * orders them; a product does not care) in dtype: ggml's rule for block
 * types (dims[0] a whole number of blocks, else -EINVAL), whole bytes for
 * sub-byte types. -EINVAL for an unknown dtype, -EOVERFLOW past 2^64.
 */
int hmn_tensor_bytes(enum hmn_dtype dtype, const uint64_t *dims, size_t n_dims, uint64_t *ret_bytes);

/*
 * The memory one attention layer's forward pass holds for batch sequences of
 * seq tokens attending to kv_len positions (kv_len = seq without a cache):
 * Q (heads × head_dim), K and V (kv_heads × head_dim), the output, in
 * elem_bytes each; with eager true also the heads × seq × kv_len scores, in
 * elem_bytes, and their softmax (the s² matrices); a fused kernel (flash
 * attention) keeps neither. HMN_UNKNOWN on overflow.
 */
uint64_t hmn_attention_bytes(uint64_t batch, uint64_t seq, uint64_t kv_len, uint32_t heads,
			     uint32_t kv_heads, uint32_t head_dim, uint32_t elem_bytes, bool eager);

enum hmn_model_format { HMN_MODEL_GGUF = 1, HMN_MODEL_SAFETENSORS, HMN_MODEL_CONFIG };

/* What a layer keeps per token, or in a fixed state. */
enum hmn_layer_kind {
	HMN_LAYER_ATTENTION,   /* a KV cache as long as the context */
	HMN_LAYER_SLIDING,     /* a KV cache capped at the sliding window */
	HMN_LAYER_RECURRENT,   /* a fixed state per sequence (Mamba, RWKV) */
	HMN_LAYER_NO_CACHE,    /* keeps nothing (a layer that reuses another's cache) */
};

struct hmn_model_layer {
	enum hmn_layer_kind kind;
	uint32_t n_head_kv;         /* KV heads of this layer (0 for a recurrent one) */
	/* An attention layer that keeps a recurrent state too (Falcon-H1's Mamba-2 beside its attention). */
	bool state;
	/* A decoder's layer that keeps K and V of the encoder's output too (cross-attention; hmn_model.encoder_length). */
	bool cross;
	uint64_t weights_bytes;     /* this layer's tensors, as stored */
	uint64_t matrix_elements;   /* elements of its tensors of 2 or more dimensions */
	uint64_t vector_bytes;      /* bytes of its 1-D tensors (norms, biases) */
};

struct hmn_model {
	enum hmn_model_format format;
	const char *path;           /* as given */
	const char *name;           /* general.name, or the folder's name, as it is (not made printable); NULL: none */
	const char *architecture;   /* "llama", "gemma3" as the file names it, printable (as hmn_model_open()'s why) */
	/* NULL, or a doubt on the estimate the caller should hear (printable, as why is): an upper bound, a guess */
	const char *warning;
	/* NULL, or what is worth knowing but no doubt (printable): shards priced from the index; dtype_note, of its
	 * stored type alone (a float32 checkpoint), moot where a --dtype prices another */
	const char *note, *dtype_note;
	enum hmn_dtype dtype;       /* the type most of the weights' bytes are in */
	enum hmn_dtype float_dtype; /* the float type of the model (its activations, safetensors' KV default) */
	/* The quantization format its config names ("mxfp4", "gptq-int4", "bnb-nf4"); NULL: none, or unknown */
	const char *quantization;
	uint64_t parameters;
	uint64_t weights_bytes;     /* every tensor (GGUF: as mapped, padded to the alignment) */
	/*
	 * The tensors outside the layers, summed as a layer's are: the token
	 * embeddings (llama.cpp keeps them in host memory), the output norm and
	 * head (no head when tied to the embeddings), and the rest (position
	 * embeddings, a next-token-prediction block past the layer count).
	 */
	struct hmn_model_layer input, output, other;
	/*
	 * A vision-language model's image tower and projector (safetensors'
	 * vision_tower.*, visual.*, multi_modal_projector.*; config.json's
	 * vision_config; a GGUF folder's mmproj-*.gguf): empty for a text-only
	 * model. Its parameters are in parameters too, as model cards count
	 * them, and apart in vision_parameters.
	 */
	struct hmn_model_layer vision;
	uint64_t vision_parameters;
	uint64_t context_length;    /* trained; 0: unknown */
	/*
	 * The longest context it is meant for: context_length stretched by
	 * config.json's rope_scaling as vLLM does (YaRN's factor of its
	 * original context, a linear or dynamic factor of context_length; llama3
	 * and longrope none); context_length where it has none; 0: unknown.
	 */
	uint64_t context_limit;
	bool learned_positions; /* a learned table of context_length (GPT-2, BART, Whisper): none past it */
	/* The encoder's output a cross layer keeps K and V of, tokens a sequence (Whisper's 1500); 0: the context. */
	uint64_t encoder_length;
	uint32_t n_layer;
	struct hmn_model_layer *layers; /* n_layer of them */
	uint32_t n_embd, n_ff, n_head, n_head_kv;
	uint32_t n_vocab;           /* the tokens the output head scores; 0: none (an encoder: no logits) */
	uint32_t key_length, value_length; /* per head */
	uint32_t sliding_window;    /* 0: none */
	uint32_t n_expert, n_expert_used, n_ff_expert, n_shared_expert;
	uint32_t kv_lora_rank, rope_dim;   /* multi-head latent attention (DeepSeek): both non-zero */
	uint32_t ssm_conv, ssm_inner, ssm_state, ssm_group; /* Mamba's state */
	/*
	 * vLLM keeps the SSM state (not the convolution's) in float32 whatever
	 * the KV cache's type: Nemotron-H's, its mamba_ssm_cache_dtype's default.
	 */
	bool ssm_state_f32;
	bool tied_embeddings;
	size_t n_tensors, n_files;
	/* Private (model/ftype.h): the tensors by llama.cpp quantizer's roles, a layer at a time */
	struct model_quant_roles *quant_roles;
	struct hmn_arena *arena;    /* private */
};

/*
 * Reads a model's headers: a GGUF file (with the other parts of a split
 * one), a .safetensors file (with the config.json beside it, when there is
 * one), a folder holding config.json and its safetensors files, or a
 * config.json alone. A folder's weights are the shards its
 * model.safetensors.index.json names; without one, model.safetensors, else
 * all of model-NNNNN-of-MMMMM.safetensors, else consolidated.safetensors,
 * else all of consolidated-NNNNN-of-MMMMM.safetensors, else the one file
 * (or set of shards) that is not a LoRA adapter (adapter_*): never two
 * copies of the weights summed. Shards the index names that are not there
 * (a download in progress, or config.json and the index alone) are priced
 * from its metadata.total_size, said in the model's note. A Hugging Face
 * cache folder (models--ORG--NAME) is read through refs/main's snapshot,
 * and ORG/NAME where no such path is is looked for in the local cache
 * ($HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub,
 * ~/.cache/huggingface/hub), never the network; the model is then named
 * ORG/NAME.
 * Returns 0, or a negative errno with one line in why (what, and where:
 * the file and the offset), printable: each byte of a control character or
 * of invalid UTF-8 from the file's names a '?'. -EINVAL a malformed or
 * hostile file, -ENOENT a missing file, -EFBIG a header past the bounds,
 * -ENOTSUP a format or version hmn does not read, -ENOMEM, or what the OS
 * said.
 */
int hmn_model_open(const char *path, struct hmn_model **ret_model, char *why, size_t why_size);
struct hmn_model *hmn_model_free(struct hmn_model *model);
/* Said in its warning, returning whether: a context past context_limit ("context 32768 is beyond its 8192 trained
 * tokens ..."); --gpus not dividing the attention heads (vLLM refuses it; not a GGUF's: llama.cpp splits layers). */
bool hmn_model_warn_context(struct hmn_model *model, uint64_t context);
bool hmn_model_warn_split(struct hmn_model *model, uint32_t gpus);

/* How an estimate is asked for; hmn_fit_request_init() sets the contract's defaults. */
struct hmn_fit_request {
	uint64_t context;           /* tokens per sequence; 0: the model's trained context */
	uint32_t batch;             /* sequences; 0 means 1 */
	uint32_t ubatch;            /* tokens of one forward step (llama.cpp's n_ubatch); 0 means 512 */
	enum hmn_dtype dtype;       /* weights priced in this type; HMN_DTYPE_NONE: as stored */
	enum hmn_dtype kv_dtype;    /* HMN_DTYPE_NONE: f16 for GGUF, the float type for safetensors */
	bool train;
	bool eager_attention;       /* the s² scores held (no fused kernel) */
	uint32_t gpus;              /* tensor parallel over this many; 0 means 1 */
	double margin;              /* factor on the sum; 0 means 1.1 */
	const char *vendor;         /* whose runtime ("nvidia", "amd", "intel", "apple"); NULL: nvidia */
	/* GGUF: the last this many layers on the GPU (llama.cpp's --gpu-layers); UINT32_MAX: all */
	uint32_t gpu_layers;
	/* A vision-language model served without its image tower (vLLM's --limit-mm-per-prompt of 0, llama.cpp without --mmproj). */
	bool text_only;
};
/* Every field 0 but dtype and kv_dtype (HMN_DTYPE_NONE) and gpu_layers (all). */
void hmn_fit_request_init(struct hmn_fit_request *req);

/* The estimate for one GPU, each part in bytes. */
struct hmn_fit_parts {
	uint64_t weights;           /* the text model's */
	uint64_t vision;            /* the image tower and projector; HMN_UNKNOWN: none, or text_only */
	uint64_t kv_cache, activations;
	uint64_t optimizer;         /* HMN_UNKNOWN unless train */
	uint64_t runtime, margin;
	uint64_t total;             /* the parts and the margin: what one GPU needs */
	uint64_t context;           /* the context it was made for (padded as the runtime pads it) */
	enum hmn_dtype kv_dtype;    /* the KV cache's type it was made for */
};

/*
 * Each part on its own, for one GPU (already divided by req->gpus), in
 * bytes; HMN_UNKNOWN on overflow. The weights of the layers req->gpu_layers
 * names, repriced at req->dtype (tensors of 2 or more dimensions; norms and
 * biases stay as stored); a llama.cpp file type (Q4_K_M): each tensor in the
 * type llama-quantize gives it, the rest in f32, as a GGUF holds them.
 */
uint64_t hmn_fit_weights(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * A vision-language model's image tower and projector, on the GPU whatever
 * req->gpu_layers says (llama.cpp offloads the mmproj unless told not to),
 * divided by req->gpus (vLLM shards the tower as the text model) but for a
 * GGUF (llama.cpp loads the mmproj whole on one GPU); priced
 * at req->dtype only when that is a float type (quantizers leave the tower
 * out; llama.cpp's mmproj keeps its own file). HMN_UNKNOWN when the model
 * has none, or with req->text_only.
 */
uint64_t hmn_fit_vision(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * The KV cache (and recurrent state). GGUF as llama.cpp allocates it: the
 * context padded to 256 cells a sequence, sliding-window layers at
 * pad(min(context, window + ubatch), 256). safetensors as vLLM does:
 * 2 × kv_heads × head_dim a token and layer (MLA: kv_lora_rank + rope_dim,
 * once), in blocks of 16 tokens, sliding-window layers at their window;
 * over gpus a rank's KV heads (at least one; MLA whole); a GGUF's divided.
 */
uint64_t hmn_fit_kv_cache(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * Inference: the compute buffer of one step of min(batch × context, ubatch)
 * tokens over the full cache (the largest of the attention, feed-forward
 * and output phases, as llama.cpp's graph allocator sizes it; the logits in
 * f32; an encoder's: all batch × context tokens at once). Training: what the
 * backward pass keeps (Korthikanti et al. 2022, no recomputation; s² if eager).
 */
uint64_t hmn_fit_activations(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * Training's optimizer state beside the weights: gradients in the weights'
 * type, fp32 master weights when that type is narrower, AdamW's two fp32
 * moments: with 16-bit weights, 16 bytes a parameter in all (ZeRO's count).
 */
uint64_t hmn_fit_optimizer(uint64_t parameters, enum hmn_dtype dtype);
/* What the GPU's runtime takes in each process: 512 MiB on NVIDIA (CUDA context, libraries). */
uint64_t hmn_fit_runtime(const char *vendor);

/*
 * The whole estimate for one GPU: each part, the margin and the total
 * (with train, no KV cache: a training step's K and V are activations).
 * -EINVAL for a request the model cannot answer (no context known, a dtype
 * of no size), -EOVERFLOW.
 */
int hmn_fit_estimate(const struct hmn_model *m, const struct hmn_fit_request *req,
		     struct hmn_fit_parts *ret_parts);

/*
 * Reserves each part of req's estimate for one GPU in budget, in the
 * contract's order (weights, vision, kv_cache, activations, optimizer, runtime).
 * Returns 0 when all fit, -ENOSPC when one did not (*ret_part, when not
 * NULL, names it; what fitted stays reserved), or hmn_fit_estimate()'s errors.
 */
int hmn_fit_reserve(struct hmn_budget *budget, const struct hmn_model *m,
		    const struct hmn_fit_request *req, const char **ret_part);
/*
 * Does what req asks fit in limit bytes, its margin included (req->margin,
 * else 1.1)? 1 or 0, or hmn_fit_estimate()'s errors.
 */
int hmn_fit_fits(const struct hmn_model *m, const struct hmn_fit_request *req, uint64_t limit);
/*
 * The longest context (tokens per sequence) whose estimate fits in limit
 * bytes, at most the model's trained context (req->context, when set, is
 * the cap instead); for a GGUF a multiple of 256. -ENOSPC when not even the
 * shortest does.
 */
int hmn_fit_max_context(const struct hmn_model *m, const struct hmn_fit_request *req,
			uint64_t limit, uint64_t *ret_context);
/*
 * The most sequences of req->context tokens (req->batch replaced; with
 * req->train, the largest micro-batch) whose estimate fits in limit bytes,
 * its margin included: vLLM's "maximum concurrency". A GGUF's b sequences
 * are llama.cpp's -np b with -c b x context (one stream of the context per
 * sequence), at most its 256 (LLAMA_MAX_SEQ); safetensors at most 65536.
 * 0 when not one fits; -EINVAL with no context known.
 */
int hmn_fit_max_batch(const struct hmn_model *m, const struct hmn_fit_request *req,
		      uint64_t limit, uint32_t *ret_batch);
/*
 * GGUF: how many of the model's layers fit on a GPU with limit bytes
 * (llama.cpp's --gpu-layers: the last ones, the output with the last count,
 * n_layer + 1), their KV cache, the compute buffer and the runtime with
 * them. 0 when none does; -ENOTSUP for another format.
 */
int hmn_fit_gpu_layers(const struct hmn_model *m, const struct hmn_fit_request *req,
		       uint64_t limit, uint32_t *ret_layers);

#ifdef __cplusplus
}
#endif

#endif
