/*
 * lib/model/arch.h: the architectures hmn knows (arch.c's one table): by
 * GGUF's name and config.json's model_type, the facts each reader needs
 * of one, and the defaults of its transformers config class. Private to
 * lib/model; model.h includes it for the readers.
 */
#ifndef HMN_MODEL_ARCH_H
#define HMN_MODEL_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/* A number transformers' config class sets when config.json leaves its key out. */
struct config_default {
	const char *key;
	uint64_t value;          /* a flag's: 0 or 1 */
};

#define ARCH_MAX_MODEL_TYPES 3

/* One architecture, by GGUF's name and config.json's, and what each reader needs of it. */
struct arch_info {
	const char *gguf;            /* GGUF's general.architecture; NULL: none of its own */
	/* config.json's model_type words, the first ones of the array; none: GGUF's alone */
	const char *model_types[ARCH_MAX_MODEL_TYPES];
	uint32_t swa_pattern;        /* every Nth layer is full, the rest slide (0: none) */
	bool recurrent;              /* Mamba-style state, no KV cache */
	/* How config.json's layers are built, where they differ from Llama's (a GGUF lists its tensors). */
	bool plain_mlp;              /* up and down (GELU), not gate, up and down */
	bool linear_bias;            /* every linear layer has a bias */
	bool qkv_bias;               /* Q, K and V have biases */
	bool layer_norm;             /* LayerNorm (weight and bias), not RMSNorm */
	bool qk_norm;                /* a norm on Q and on K (head_dim each) */
	bool sandwich_norm;          /* norms after attention and MLP too (Gemma 2/3) */
	bool tied;                   /* the default of tie_word_embeddings */
	bool positions;              /* learned position embeddings (GPT-2) */
	bool encoder;                /* BERT's: no KV cache, no LM head; token types, an embedding norm, a pooler */
	bool parallel;               /* one norm before attention and MLP side by side (Phi, Falcon's first format) */
	bool output_bias;            /* the LM head has a bias (Phi) */
	bool bare_norm;              /* norms without parameters (OLMo's LayerNorm) */
	bool qk_norm_full;           /* the Q and K norms span all their heads (OLMo 2, Cohere), not head_dim */
	bool half_ff;                /* the gated MLP's two halves split intermediate_size (Qwen's first) */
	bool sinks;                  /* a learned sink per head in each attention layer (gpt-oss's self_attn.sinks) */
	bool moe_bias;               /* the router and every expert's matrices have biases (gpt-oss) */
	uint32_t extra_vocab;        /* embedding rows past the vocabulary (Molmo's new_embedding: 128) */
	/*
	 * num_nextn_predict_layers are MiMo's multi-token-prediction layers
	 * (model.mtp_layers.N: input_proj of 2 x width by width, three norms,
	 * one of its decoder layers; the model's embeddings and head), not
	 * DeepSeek-V3's (read wherever latent attention is: model.layers.N past
	 * the model's, each with embeddings and a head of its own).
	 */
	bool mimo_mtp;
	/*
	 * An encoder and a decoder (config-encoder-decoder.c): the decoder's
	 * layers keep K and V of its tokens and of the encoder's output
	 * (cross-attention). T5's (relative attention bias in each stack's first
	 * layer, UMT5's in every layer), BART's (learned positions, biases,
	 * LayerNorms; mBART's a final one per stack), Whisper's (an audio
	 * encoder of two convolutions, a fixed length). mT5's is T5's, gated
	 * by default.
	 */
	enum { ENCDEC_NONE, ENCDEC_T5, ENCDEC_MT5, ENCDEC_UMT5, ENCDEC_BART, ENCDEC_MBART, ENCDEC_WHISPER } encdec;
	/*
	 * Layers of Mamba-2 mixers, attention and MLPs, each layer's kinds from
	 * the config's own keys (config.c's read_hybrid): Mamba2's every layer,
	 * Nemotron-H's hybrid_override_pattern, Qwen3-Next's gated DeltaNet in
	 * all but every full_attention_interval-th layer, Jamba's periods.
	 */
	enum { HYBRID_NONE, HYBRID_MAMBA2, HYBRID_NEMOTRON_H, HYBRID_QWEN3_NEXT, HYBRID_JAMBA, HYBRID_LLAMA4,
	       HYBRID_GRANITE, HYBRID_NEMOTRON_NAS, HYBRID_FALCON_H1, HYBRID_ZAMBA2,
	       HYBRID_ZAMBA,
	       HYBRID_GEMMA3N /* config-gemma3n.c's: AltUp, LAuReL, per-layer inputs, shared KV */ } hybrid;
	/*
	 * A GGUF's recurrent layers where llama.cpp has a rule of its own
	 * (llama-model.cpp's recurrent_layer_arr and its hybrid memory's layer
	 * filters); otherwise a layer without KV heads in a model with an SSM
	 * state is recurrent (Jamba, Granite 4.0).
	 */
	enum {
		RECURRENT_NO_KV,
		RECURRENT_NO_KV_NO_FF,   /* Nemotron-H: neither KV heads nor a feed-forward; with one, no cache */
		RECURRENT_INTERVAL,      /* Qwen3-Next: all but every full_attention_interval-th (4) */
		RECURRENT_BESIDE,        /* Falcon-H1: a state beside every attention layer */
	} gguf_recurrent;
	/*
	 * Falcon's keys: multi_query (one KV head) unless new_decoder_architecture
	 * (num_kv_heads, and two norms unless num_ln_in_parallel_attn says one);
	 * the default of new_decoder_architecture is the defaults' entry
	 * (RefinedWeb's is true).
	 */
	bool falcon;
	/*
	 * The keys that say how its layers are built, where the family has them
	 * (NULL: none; absent: the defaults' entry, else the flag above): every
	 * linear layer's bias (Falcon's bias, StarCoder2's use_bias), Q, K, V and
	 * O's (attention_bias; InternLM2's bias), Q, K and V's (StableLM's
	 * use_qkv_bias), one norm for attention and MLP side by side
	 * (parallel_attn, use_parallel_residual), Q and K norms (qk_layernorm,
	 * use_qk_norm).
	 */
	const char *bias_key, *attention_bias_key, *qkv_bias_key, *parallel_key, *qk_norm_key;
	/* The LM head's bias where a key says it (PhiMoE's lm_head_bias; absent: the defaults' entry, else output_bias). */
	const char *output_bias_key;
	/*
	 * A key that sizes the model another way than the keys hmn reads, so
	 * refused unless absent or null (Phi-3-small's ff_dim_multiplier, the
	 * other way to say ff_intermediate_size).
	 */
	const char *unread_key;
	/*
	 * The KV heads' key where it is not num_key_value_heads (DBRX's
	 * attn_config.kv_n_heads), read where kv_heads_if is true or NULL
	 * (ChatGLM's multi_query_attention).
	 */
	const char *kv_heads_key, *kv_heads_if;
	/*
	 * The config class's defaults for the keys config.c reads
	 * (configuration_*.py), ended by a NULL key; where the class derives
	 * one instead (head_dim, num_key_value_heads of None), it is left out,
	 * and the code derives it the same way. NULL without model_types.
	 */
	const struct config_default *defaults;
};
/* The entry a GGUF's general.architecture names; NULL for one hmn does not know. */
const struct arch_info *arch_find_gguf(const char *name);
/* The entry a config.json's model_type names; NULL for one hmn does not know. */
const struct arch_info *arch_find_model_type(const char *model_type);

#endif
