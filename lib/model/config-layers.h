/*
 * lib/model/config-layers.h: the shape a config.json is read into, and the
 * readers of a transformer's layers (config-layers.c) that every family
 * and the hybrids use. Private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_LAYERS_H
#define HMN_MODEL_CONFIG_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/config-keys.h"
#include "model/quant.h"

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
	uint64_t mtp;                /* multi-token-prediction layers (num_nextn_predict_layers: DeepSeek-V3, MiMo) */
	/*
	 * Gemma 3n's (config-gemma3n.c): AltUp's inputs, LAuReL's rank, the
	 * per-layer inputs' width and vocabulary; its last kv_shared layers
	 * keep no cache of their own. 0: none (every other family).
	 */
	uint64_t altup, laurel, per_layer, per_layer_vocab, kv_shared;
	/* Nemotron-NAS's layers' own KV heads and MLP widths: malloc'd, n_layer of each, or NULL. */
	uint32_t *layer_kv;
	uint64_t *layer_ff;
	/*
	 * Zamba's and Zamba2's: their hybrid layers' attention (over attn_width,
	 * twice the width by default) and MLP are one of shared_blocks blocks,
	 * priced once (0: none such); each hybrid layer has its own linear layer
	 * and (Zamba2) LoRA adapters of adapter_rank (0: none), on Q, K and V too
	 * where attention_adapter.
	 */
	uint64_t shared_blocks, attn_width, adapter_rank;
	bool attention_adapter;
	bool mamba_unnormed;         /* a Mamba (1) mixer without norms on dt, B and C (Zamba's; Jamba's has them) */
	/* An encoder-decoder's (arch_info.encdec): the encoder's layers (the first enc_layers of n_layer), its feed-forward. */
	uint64_t enc_layers, enc_ff;
	uint64_t buckets;            /* T5's relative_attention_num_buckets */
	uint64_t mels;               /* Whisper's num_mel_bins: its first convolution's input */
};

/* Layers, width, vocabulary, trained context, tied embeddings: what every family has. */
int config_read_common(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);
/* The heads, KV heads, head width and feed-forward of a transformer's attention layers. */
int config_read_attention(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);
/* A plain decoder's layers: which attend, latent attention, the heads, the experts. */
int config_read_transformer(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);

#endif
