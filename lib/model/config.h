/*
 * lib/model/config.h: what config.c's readers of config.json share with
 * the readers of its families in files of their own (config-hybrid.c):
 * where a key is looked up, how a number is taken and checked, and the
 * shape being read. Private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_H
#define HMN_MODEL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model/model.h"
#include "model/quant.h"

/* Where a config's shape is read: a multimodal one's text_config first, then the top level. */
struct config {
	const cJSON *text, *root;
	const struct arch_info *family; /* whose defaults stand for keys left out; NULL: none */
	const char *file;            /* for messages */
	const char *model_type;      /* printable, for messages */
	/*
	 * A model_type hmn does not know, beside its weights: the heads and the
	 * feed-forward it does not name are bounded (K and V as wide as the
	 * model, 4 x width), not refused: the weights are the headers' anyway.
	 */
	bool bound;
	bool by_index;               /* the weights are an index's total_size (model_build.priced_by_index) */
	struct shape_names names;    /* the keys the shape's rules name: transformers' own */
	const cJSON *modelopt;       /* hf_quant_config.json beside it; NULL: none */
	const cJSON *gptq;           /* quantize_config.json beside it; NULL: none */
	struct model_error *e;
};

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The shape every transformer has, by transformers' names and the older ones some families keep. */
#define LAYER_KEYS KEYS("num_hidden_layers", "n_layer", "num_layers", "n_layers")
#define WIDTH_KEYS KEYS("hidden_size", "n_embd", "d_model")
#define VOCAB_KEYS KEYS("vocab_size", "padded_vocab_size")
#define HEAD_KEYS KEYS("num_attention_heads", "n_head", "n_heads")
#define FF_KEYS KEYS("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", "ffn_config.ffn_hidden_size", \
			"ff_intermediate_size")

/* Saturating sums and products (HMN_UNKNOWN past 2^64): a hostile shape is too large, never wrapped. */
#define MUL3(a, b, c) sat_mul(sat_mul(a, b), c)

struct shape {
	const struct arch_info *family;
	uint64_t h, ff, vocab, positions;
	uint64_t q_lora, nope, rope, v_head;
	uint64_t ff_moe, ff_shared, first_dense;
	uint64_t types;   /* an encoder's token types (type_vocab_size) */
	uint64_t kv_heads; /* the K and V projections' heads, where the cache has none (an encoder) */
	unsigned norms;   /* norms in each layer */
	bool bias;        /* every linear layer has a bias */
	bool qkv_bias, o_bias; /* Q, K and V have biases; O has one */
	bool output_bias; /* the LM head has a bias */
	bool qk_norm;     /* a norm on Q and on K */
	bool heads_bounded; /* no heads named: one as wide as the model (c->bound) */
	bool tied;
	enum hmn_dtype weights;  /* the float type: norms, and what the quantization leaves */
	bool dtype_unnamed;      /* no torch_dtype: weights is transformers' default, float32 */
	struct quant q;          /* the checkpoint's quantization (q.name empty: none) */
	/* Llama 3.2 Vision's cross-attention layers (cross_attention_layers): malloc'd, n_layer of them, or NULL. */
	bool *cross;
	uint64_t extra_vocab;        /* embedding rows past the vocabulary (Mllama's 8) */
	/* A hybrid's (arch_info.hybrid): each layer's parts, HY_* bits; malloc'd, n_layer of them, or NULL. */
	unsigned char *parts;
	uint64_t ssm_heads;          /* the Mamba-2 mixer's heads (m->ssm_inner: their width in all) */
	bool ssm_bias, ssm_out_bias, conv_bias; /* in_proj's bias, out_proj's; the convolution's */
	bool ssm_unnormed;           /* the mixer has no gated norm (Falcon-H1's mamba_rms_norm false) */
	bool mlp_bias;               /* the MLP's and experts' biases (Nemotron-H's mlp_bias) */
	bool gated;                  /* the MLP and experts are gated (gate, up, down), the shared expert too */
	bool q_gate;                 /* attention's output gated: Q's projection twice as wide (Qwen3-Next) */
	bool shared_gate;            /* the shared expert's output gated (Qwen3-Next's shared_expert_gate) */
	/* Llama 4's layers that attend within chunks (its RoPE layers): malloc'd, n_layer of them, or NULL. */
	bool *chunked;
	uint64_t chunk;
	/* Gated DeltaNet (Qwen3-Next): key heads x key width, value heads x value width, the convolution's kernel. */
	uint64_t gdn_k_heads, gdn_k_dim, gdn_v_heads, gdn_v_dim, gdn_conv;
	uint64_t mtp;                /* DeepSeek-V3's multi-token-prediction layers (num_nextn_predict_layers) */
	/* Nemotron-NAS's layers' own KV heads and MLP widths: malloc'd, n_layer of each, or NULL. */
	uint32_t *layer_kv;
	uint64_t *layer_ff;
};

/* What a hybrid's layer holds. */
enum { HY_SSM = 1, HY_ATTN = 2, HY_MLP = 4, HY_MOE = 8, HY_GDN = 16, HY_MAMBA = 32,
       HY_LINEAR = 64,      /* attention replaced by one width-by-width matrix (Nemotron-NAS) */
       HY_LINEAR_MLP = 128, /* the MLP replaced by one width-by-width matrix (Nemotron-NAS) */
};

/* key's value, text_config's before the top level's; *ret_where names which, for messages. */
const cJSON *config_lookup(const struct config *c, const char *key, const char **ret_where);
/* A JSON value as a message shows it: a number as written, a string quoted, else what it is. */
void config_describe(const cJSON *v, char *out, size_t size);
/*
 * A whole number from the first of keys present, within [min, max]; else
 * the family's default. Anything else is malformed, said naming the key.
 * config_required: absent is malformed too; config_optional: fallback.
 */
int config_required(const struct config *c, const char *const *keys, uint64_t min, uint64_t max, uint64_t *ret);
int config_optional(const struct config *c, const char *const *keys, uint64_t min, uint64_t max, uint64_t fallback,
		    uint64_t *ret);
/* true or false; when absent, the family's default, else fallback; anything else is malformed. */
int config_flag(const struct config *c, const char *key, bool fallback, bool *ret);
/* The heads, KV heads, head width and feed-forward of a transformer's layers (config.c). */
int config_read_attention(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);

/* ---- config-hybrid.c ---- */
/* Mamba's state instead of heads; the defaults are transformers' MambaConfig's. */
int config_read_recurrent(const struct config *c, struct hmn_model *m, struct shape *s);
/* A hybrid's layers (arch_info.hybrid), each layer's kinds from the config's own keys. */
int config_read_hybrid(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);

#endif
