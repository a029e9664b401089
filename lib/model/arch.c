/*
 * The architectures hmn knows: one entry each, under the name a GGUF gives
 * it (general.architecture, llama.cpp's) and the names a config.json does
 * (model_type, transformers'), where the one is the other's model. llama.cpp
 * converts some model_types to another's architecture (Mistral and Mixtral
 * to llama, DeepSeek-V3 to deepseek2): those that transformers gives
 * defaults of their own keep an entry of their own, without a GGUF name.
 *
 * Each reader looks an architecture up by its own names alone: one that
 * GGUF names and config.json does not (mistral3, rwkv6) is unknown
 * to the config reader, and one only config.json names (mistral) to the
 * GGUF reader, as each was when they were two tables.
 */
#include <string.h>

#include "model/model.h"

#define DEFAULTS(...) ((const struct config_default[]){ __VA_ARGS__, { NULL, 0 } })

/*
 * What llama.cpp's llama-model.cpp says of each (set_swa_pattern: which
 * layers slide; which keep a recurrent state; latent attention is told by
 * its keys), and for config.json how transformers' modeling_*.py builds its
 * layers and the defaults of its configuration_*.py. A config.json alone of
 * a model_type not here is refused (hmn would be guessing its size); with
 * its weights, they are priced from their headers and the KV cache as an
 * upper bound (model_warn_unknown_architecture).
 */
static const struct arch_info arches[] = {
	{ .gguf = "llama", .model_types = { "llama" },
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }) },
	/*
	 * Idefics3Config's text model (SmolVLM's, Idefics3's; SmolVLMConfig's,
	 * SmolVLM2's, the same) where its text_config names no model_type:
	 * LlamaConfig's, its head untied by default as Llama's; the tower and
	 * connector are vision.c's.
	 */
	{ .model_types = { "idefics3", "smolvlm" },
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }) },
	/* llama in GGUF, the entry above; their config classes' defaults are their own. */
	{ .model_types = { "mistral" },
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 14336 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 131072 },
			       { "sliding_window", 4096 }) },
	{ .model_types = { "mixtral" },
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 14336 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 131072 },
			       { "num_local_experts", 8 }, { "num_experts_per_tok", 2 }) },
	/*
	 * Llama4TextConfig's (Llama 4 Scout and Maverick): a mixture of experts
	 * with a shared expert where moe_layers says (else every
	 * interleave_moe_layer_step-th layer), a gated MLP of
	 * intermediate_size_mlp elsewhere; the RoPE layers (no_rope_layers' 1s,
	 * else all but every 4th) attend within chunks of attention_chunk_size,
	 * the NoPE layers to the whole context. Its Q and K norm has no weights.
	 */
	{ .gguf = "llama4", .model_types = { "llama4", "llama4_text" }, .swa_pattern = 4, .hybrid = HYBRID_LLAMA4,
	  .defaults = DEFAULTS({ "vocab_size", 202048 }, { "hidden_size", 5120 }, { "intermediate_size", 8192 },
			       { "intermediate_size_mlp", 16384 }, { "num_hidden_layers", 48 },
			       { "num_attention_heads", 40 }, { "num_key_value_heads", 8 }, { "head_dim", 128 },
			       { "max_position_embeddings", 131072 }, { "num_local_experts", 16 },
			       { "num_experts_per_tok", 1 }, { "interleave_moe_layer_step", 1 },
			       { "attention_chunk_size", 8192 }) },
	{ .gguf = "mistral3" },
	{ .gguf = "qwen2", .model_types = { "qwen2" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	/*
	 * MiniCPM-V 2.6 (minicpmv; remote code, its MiniCPMVConfig a
	 * Qwen2Config): Qwen2's text model at the top level, Q, K and V biased;
	 * its tower and resampler are vision.c's, which refuses the versions
	 * whose text model is another's (2.0, 2.5, 4.0, 4.5).
	 */
	{ .model_types = { "minicpmv" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	/*
	 * Molmo (molmo; remote code, MolmoConfig: no defaults assumed): a
	 * Qwen2-shaped text model whose ff_proj is gate and up at once
	 * (intermediate_size / 2 each), Q, K and V biased where qkv_bias says,
	 * 128 embedding rows past the vocabulary for its image tokens
	 * (wte.new_embedding); its tower, fixed in its code, is vision.c's,
	 * which refuses the variants whose text model is another's (MolmoE's
	 * experts, OLMo's Q and K norms, tied weights).
	 */
	{ .model_types = { "molmo" }, .half_ff = true, .qkv_bias_key = "qkv_bias", .extra_vocab = 128 },
	/* Qwen2-VL's and Qwen2.5-VL's text models are Qwen2's (Q, K and V biased); Qwen2VLTextConfig's defaults. */
	/*
	 * MiMoConfig's (XiaomiMiMo/MiMo-7B, remote code: a Qwen2Config with
	 * num_nextn_predict_layers, 0 by default): Qwen2's layers, Q, K and V
	 * biased, beside its multi-token-prediction layers (model.mtp_layers.N,
	 * config.c's say_mtp), which vLLM's MiMoForCausalLM does not load.
	 */
	{ .model_types = { "mimo" }, .qkv_bias = true, .mimo_mtp = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	{ .model_types = { "qwen2_vl", "qwen2_vl_text" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 152064 }, { "hidden_size", 8192 }, { "intermediate_size", 29568 },
			       { "num_hidden_layers", 80 }, { "num_attention_heads", 64 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	{ .model_types = { "qwen2_5_vl", "qwen2_5_vl_text" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 152064 }, { "hidden_size", 8192 }, { "intermediate_size", 29568 },
			       { "num_hidden_layers", 80 }, { "num_attention_heads", 64 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	/* Qwen3-VL's text models are Qwen3's and Qwen3-MoE's (a norm on Q and K); their configs write their shape. */
	{ .model_types = { "qwen3_vl", "qwen3_vl_text" }, .qk_norm = true },
	{ .model_types = { "qwen3_vl_moe", "qwen3_vl_moe_text" }, .qk_norm = true },
	/* Llama 3.2 Vision's text model (MllamaTextConfig's defaults); its cross-attention layers are config.c's. */
	{ .model_types = { "mllama_text_model", "mllama" },
	  .defaults = DEFAULTS({ "vocab_size", 128256 }, { "hidden_size", 4096 }, { "intermediate_size", 14336 },
			       { "num_hidden_layers", 40 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 131072 }) },
	{ .gguf = "qwen2moe", .model_types = { "qwen2_moe" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 2048 }, { "intermediate_size", 5632 },
			       { "num_hidden_layers", 24 }, { "num_attention_heads", 16 },
			       { "num_key_value_heads", 16 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 },
			       { "moe_intermediate_size", 1408 }, { "shared_expert_intermediate_size", 5632 },
			       { "num_experts", 60 }, { "num_experts_per_tok", 4 }) },
	{ .gguf = "qwen3", .model_types = { "qwen3" }, .qk_norm = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "head_dim", 128 },
			       { "max_position_embeddings", 32768 }, { "use_sliding_window", 0 },
			       { "sliding_window", 4096 }) },
	{ .gguf = "qwen3moe", .model_types = { "qwen3_moe" }, .qk_norm = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 2048 }, { "intermediate_size", 6144 },
			       { "num_hidden_layers", 24 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 4 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 },
			       { "moe_intermediate_size", 768 }, { "num_experts", 128 },
			       { "num_experts_per_tok", 8 }) },
	{ .gguf = "gemma", .model_types = { "gemma" }, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 256000 }, { "hidden_size", 3072 }, { "intermediate_size", 24576 },
			       { "num_hidden_layers", 28 }, { "num_attention_heads", 16 },
			       { "num_key_value_heads", 16 }, { "head_dim", 256 },
			       { "max_position_embeddings", 8192 }) },
	{ .gguf = "gemma2", .model_types = { "gemma2" }, .swa_pattern = 2, .tied = true, .sandwich_norm = true,
	  .defaults = DEFAULTS({ "vocab_size", 256000 }, { "hidden_size", 2304 }, { "intermediate_size", 9216 },
			       { "num_hidden_layers", 26 }, { "num_attention_heads", 8 },
			       { "num_key_value_heads", 4 }, { "head_dim", 256 },
			       { "max_position_embeddings", 8192 }, { "sliding_window", 4096 }) },
	/* Gemma3TextConfig's: a gemma3 config's text_config is one whatever its model_type says. */
	{ .gguf = "gemma3", .model_types = { "gemma3_text", "gemma3" }, .swa_pattern = 6, .tied = true,
	  .sandwich_norm = true, .qk_norm = true,
	  .defaults = DEFAULTS({ "vocab_size", 262208 }, { "hidden_size", 2304 }, { "intermediate_size", 9216 },
			       { "num_hidden_layers", 26 }, { "num_attention_heads", 8 },
			       { "num_key_value_heads", 4 }, { "head_dim", 256 },
			       { "max_position_embeddings", 131072 }, { "sliding_window", 4096 }) },
	/*
	 * Gemma3nTextConfig's (Gemma 3n E2B and E4B; a gemma3n config's
	 * text_config is one): Gemma 3's layers (norms after attention and MLP
	 * too, Q and K normed per head) with an intermediate_size a layer, AltUp,
	 * LAuReL and per-layer inputs, the last num_kv_shared_layers reusing an
	 * earlier layer's cache (config-gemma3n.c); without layer_types every
	 * 5th layer is full, the rest slide. No GGUF name: llama.cpp's
	 * gemma3n shares KV too, which gguf.c does not read, so a GGUF of it is
	 * priced as an unknown architecture's upper bound.
	 */
	{ .model_types = { "gemma3n_text", "gemma3n" }, .hybrid = HYBRID_GEMMA3N, .tied = true, .swa_pattern = 5,
	  .defaults = DEFAULTS({ "vocab_size", 262400 }, { "vocab_size_per_layer_input", 262144 },
			       { "hidden_size", 2048 }, { "hidden_size_per_layer_input", 256 },
			       { "intermediate_size", 16384 },
			       { "num_hidden_layers", 35 }, { "num_attention_heads", 8 },
			       { "num_key_value_heads", 2 }, { "head_dim", 256 },
			       { "max_position_embeddings", 32768 }, { "sliding_window", 512 },
			       { "altup_num_inputs", 4 }, { "laurel_rank", 64 }, { "num_kv_shared_layers", 15 }) },
	/*
	 * CohereConfig's and Cohere2Config's: one norm before attention and
	 * MLP side by side, a LayerNorm without bias (a weight, as RMSNorm's);
	 * use_qk_norm's span all heads.
	 */
	{ .gguf = "cohere2", .model_types = { "cohere2" }, .swa_pattern = 4, .parallel = true, .tied = true,
	  .qk_norm_full = true, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 256000 }, { "hidden_size", 8192 }, { "intermediate_size", 22528 },
			       { "num_hidden_layers", 40 }, { "num_attention_heads", 64 },
			       { "max_position_embeddings", 8192 }, { "sliding_window", 4096 }) },
	{ .gguf = "command-r", .model_types = { "cohere" }, .parallel = true, .tied = true, .qk_norm_full = true,
	  .attention_bias_key = "attention_bias", .qk_norm_key = "use_qk_norm",
	  .defaults = DEFAULTS({ "vocab_size", 256000 }, { "hidden_size", 8192 }, { "intermediate_size", 22528 },
			       { "num_hidden_layers", 40 }, { "num_attention_heads", 64 },
			       { "max_position_embeddings", 8192 }) },
	/*
	 * Qwen's first (QWenConfig, remote code): c_attn's fused Q, K and V
	 * with a bias, its MLP's w1 and w2 of intermediate_size / 2 each.
	 */
	{ .model_types = { "qwen" }, .qkv_bias = true, .half_ff = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 8192 }) },
	/*
	 * PhiConfig's (Phi-1, 1.5, 2): one LayerNorm before attention and MLP
	 * side by side, biases on every linear layer, the LM head's too.
	 * mixformer-sequential is Phi-1.5's first format (its own remote code,
	 * MixFormerSequentialConfig: n_embd, n_layer, n_head, n_inner None for
	 * 4 x width); its defaults are not transformers', so none are assumed.
	 */
	{ .gguf = "phi2", .model_types = { "phi" }, .plain_mlp = true, .linear_bias = true, .layer_norm = true,
	  .parallel = true, .output_bias = true, .qk_norm_key = "qk_layernorm",
	  .defaults = DEFAULTS({ "vocab_size", 51200 }, { "hidden_size", 2048 }, { "intermediate_size", 8192 },
			       { "num_hidden_layers", 24 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }, { "qk_layernorm", 0 }) },
	{ .model_types = { "mixformer-sequential" }, .plain_mlp = true, .linear_bias = true, .layer_norm = true,
	  .parallel = true, .output_bias = true },
	{ .gguf = "phi3", .model_types = { "phi3" },
	  .defaults = DEFAULTS({ "vocab_size", 32064 }, { "hidden_size", 3072 }, { "intermediate_size", 8192 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 4096 }) },
	/*
	 * PhimoeConfig's (Phi-3.5-MoE): Mixtral's experts and router, LayerNorms
	 * with biases, Q, K, V and O biases (attention_bias) and the LM head's
	 * (lm_head_bias), both false in the class and true in Phi-3.5-MoE.
	 */
	{ .gguf = "phimoe", .model_types = { "phimoe" }, .layer_norm = true, .attention_bias_key = "attention_bias",
	  .output_bias_key = "lm_head_bias",
	  .defaults = DEFAULTS({ "vocab_size", 32064 }, { "hidden_size", 4096 }, { "intermediate_size", 6400 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 131072 },
			       { "num_local_experts", 16 }, { "num_experts_per_tok", 2 },
			       { "attention_bias", 0 }, { "lm_head_bias", 0 }) },
	/*
	 * Phi3SmallConfig's (Phi-3-small, the model repository's
	 * configuration_phi3_small.py): LayerNorms, biases on every linear layer
	 * (query_key_value, dense, up_proj of 2 x ff_intermediate_size for its
	 * GEGELU, down_proj), tied (PretrainedConfig's default: the class sets
	 * none). Its blocksparse layers (all but every
	 * dense_attention_every_n_layers-th) still keep K and V for every token,
	 * as vLLM's cache does: no fewer bytes, so no key of theirs is read.
	 */
	{ .model_types = { "phi3small" }, .linear_bias = true, .layer_norm = true, .tied = true,
	  .unread_key = "ff_dim_multiplier",
	  .defaults = DEFAULTS({ "vocab_size", 100352 }, { "hidden_size", 4096 }, { "ff_intermediate_size", 14336 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 8192 }) },
	/*
	 * PersimmonConfig's (Persimmon-8B; Fuyu's language model): biases on
	 * every linear layer, a plain MLP (relu²), LayerNorms, and a LayerNorm
	 * of head_dim on Q and on K (qk_layernorm, true by default). FuyuConfig
	 * names its Persimmon's shape at its top level, with these defaults;
	 * its patches' Linear is vision.c's.
	 */
	{ .model_types = { "persimmon", "fuyu" }, .plain_mlp = true, .linear_bias = true, .layer_norm = true,
	  .qk_norm_key = "qk_layernorm",
	  .defaults = DEFAULTS({ "vocab_size", 262144 }, { "hidden_size", 4096 }, { "intermediate_size", 16384 },
			       { "num_hidden_layers", 36 }, { "num_attention_heads", 64 },
			       { "max_position_embeddings", 16384 }, { "qk_layernorm", 1 }) },
	/* GPT-2's own names (hidden_size is n_embd to it); n_inner None is 4 × n_embd. */
	{ .gguf = "gpt2", .model_types = { "gpt2" }, .plain_mlp = true, .linear_bias = true, .layer_norm = true,
	  .tied = true, .positions = true,
	  .defaults = DEFAULTS({ "vocab_size", 50257 }, { "n_embd", 768 }, { "n_layer", 12 }, { "n_head", 12 },
			       { "n_positions", 1024 }) },
	{ .gguf = "gptneox", .model_types = { "gpt_neox" }, .plain_mlp = true, .linear_bias = true,
	  .layer_norm = true,
	  .defaults = DEFAULTS({ "vocab_size", 50432 }, { "hidden_size", 6144 }, { "intermediate_size", 24576 },
			       { "num_hidden_layers", 44 }, { "num_attention_heads", 64 },
			       { "max_position_embeddings", 2048 }) },
	{ .gguf = "starcoder" },
	/* Starcoder2Config's: LayerNorms, a plain MLP, biases where use_bias says (its default). */
	{ .gguf = "starcoder2", .model_types = { "starcoder2" }, .plain_mlp = true, .layer_norm = true,
	  .linear_bias = true, .tied = true, .bias_key = "use_bias",
	  .defaults = DEFAULTS({ "vocab_size", 49152 }, { "hidden_size", 3072 }, { "intermediate_size", 12288 },
			       { "num_hidden_layers", 30 }, { "num_attention_heads", 24 },
			       { "num_key_value_heads", 2 }, { "max_position_embeddings", 4096 }) },
	/*
	 * FalconConfig's, and its first format's (RefinedWebModel: Falcon-7B's
	 * RWConfig, n_head and n_layer): multi_query is one KV head unless
	 * new_decoder_architecture (num_kv_heads, ln_attn and ln_mlp); a
	 * LayerNorm with its bias whatever bias says; ffn_hidden_size None
	 * is 4 x width. Falcon-40B's first format (RefinedWeb) is the new
	 * decoder architecture, by its model_type alone.
	 */
	{ .gguf = "falcon", .model_types = { "falcon", "RefinedWebModel" }, .falcon = true, .plain_mlp = true,
	  .layer_norm = true, .tied = true, .bias_key = "bias", .parallel_key = "parallel_attn",
	  .defaults = DEFAULTS({ "vocab_size", 65024 }, { "hidden_size", 4544 }, { "num_hidden_layers", 32 },
			       { "num_attention_heads", 71 }, { "max_position_embeddings", 2048 },
			       { "multi_query", 1 }, { "parallel_attn", 1 }, { "bias", 0 },
			       { "new_decoder_architecture", 0 }) },
	{ .model_types = { "RefinedWeb" }, .falcon = true, .plain_mlp = true, .layer_norm = true, .tied = true,
	  .bias_key = "bias", .parallel_key = "parallel_attn",
	  .defaults = DEFAULTS({ "vocab_size", 65024 }, { "hidden_size", 4544 }, { "num_hidden_layers", 32 },
			       { "num_attention_heads", 71 }, { "max_position_embeddings", 2048 },
			       { "multi_query", 1 }, { "parallel_attn", 1 }, { "bias", 0 },
			       { "new_decoder_architecture", 1 }) },
	/*
	 * StableLmConfig's: LayerNorms, Llama's gated MLP, Q, K and V biases
	 * where use_qkv_bias says; qk_layernorm's are per head, weights only.
	 */
	{ .gguf = "stablelm", .model_types = { "stablelm" }, .layer_norm = true, .qk_norm_full = true,
	  .qkv_bias_key = "use_qkv_bias", .parallel_key = "use_parallel_residual", .qk_norm_key = "qk_layernorm",
	  .defaults = DEFAULTS({ "vocab_size", 50304 }, { "hidden_size", 2560 }, { "intermediate_size", 6912 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 4096 }) },
	/* InternLM2's own config class (remote code): bias is Q, K, V and O's (wqkv, wo), not the MLP's. */
	{ .gguf = "internlm2", .model_types = { "internlm2" }, .attention_bias_key = "bias",
	  .defaults = DEFAULTS({ "vocab_size", 103168 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }, { "bias", 1 }) },
	/* OlmoConfig's: its LayerNorms have no parameters. */
	{ .gguf = "olmo", .model_types = { "olmo" }, .bare_norm = true, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 50304 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }) },
	/* Olmo2Config's: norms after attention and MLP, Q and K normed over all their heads. */
	{ .gguf = "olmo2", .model_types = { "olmo2" }, .qk_norm = true, .qk_norm_full = true,
	  .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 50304 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }) },
	/* OlmoeConfig's: OLMo 2's Q and K norms before the layers, experts of intermediate_size. */
	{ .gguf = "olmoe", .model_types = { "olmoe" }, .qk_norm = true, .qk_norm_full = true,
	  .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 50304 }, { "hidden_size", 2048 }, { "intermediate_size", 2048 },
			       { "num_hidden_layers", 16 }, { "num_attention_heads", 16 },
			       { "max_position_embeddings", 4096 }, { "num_experts", 64 }, { "num_experts_per_tok", 8 }) },
	/* GraniteConfig's: Llama's layers (its multipliers are no parameters). */
	{ .gguf = "granite", .model_types = { "granite" }, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }) },
	/* GraniteMoeConfig's: each expert's input_linear is gate and up at once. */
	{ .gguf = "granitemoe", .model_types = { "granitemoe" }, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }, { "num_local_experts", 8 },
			       { "num_experts_per_tok", 2 }) },
	{ .gguf = "exaone" },
	/*
	 * Exaone4Config's: norms after attention and MLP (OLMo 2's), Q and K
	 * normed per head (head_dim each), three of every four layers in a
	 * window (sliding_window_pattern: 4, or its letters, "LLLG").
	 */
	{ .gguf = "exaone4", .model_types = { "exaone4" }, .qk_norm = true, .swa_pattern = 4,
	  .defaults = DEFAULTS({ "vocab_size", 102400 }, { "hidden_size", 4096 }, { "intermediate_size", 16384 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 2048 },
			       { "sliding_window", 4096 }) },
	{ .gguf = "deepseek" },
	{ .gguf = "deepseek2", .model_types = { "deepseek_v2" },
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 2048 }, { "kv_lora_rank", 512 }, { "q_lora_rank", 1536 },
			       { "qk_nope_head_dim", 128 }, { "qk_rope_head_dim", 64 }, { "v_head_dim", 128 },
			       { "n_routed_experts", 64 }, { "n_shared_experts", 2 },
			       { "moe_intermediate_size", 1407 }, { "first_k_dense_replace", 0 }) },
	/* deepseek2 in GGUF, the entry above; DeepseekV3Config's defaults are its own. */
	{ .model_types = { "deepseek_v3" },
	  .defaults = DEFAULTS({ "vocab_size", 129280 }, { "hidden_size", 7168 }, { "intermediate_size", 18432 },
			       { "num_hidden_layers", 61 }, { "num_attention_heads", 128 },
			       { "num_key_value_heads", 128 }, { "max_position_embeddings", 4096 },
			       { "kv_lora_rank", 512 }, { "q_lora_rank", 1536 }, { "qk_nope_head_dim", 128 },
			       { "qk_rope_head_dim", 64 }, { "v_head_dim", 128 }, { "n_routed_experts", 256 },
			       { "n_shared_experts", 1 }, { "num_experts_per_tok", 8 },
			       { "moe_intermediate_size", 2048 }, { "first_k_dense_replace", 3 }) },
	/*
	 * DbrxConfig's: d_model, n_heads, n_layers, max_seq_len, and its
	 * sub-configurations' keys (attn_config.kv_n_heads, ffn_config's
	 * experts); LayerNorms without biases (a weight each), Llama's
	 * matrices, experts of three matrices, never tied.
	 */
	{ .gguf = "dbrx", .model_types = { "dbrx" }, .kv_heads_key = "attn_config.kv_n_heads",
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "d_model", 2048 }, { "n_heads", 16 }, { "n_layers", 24 },
			       { "max_seq_len", 2048 }, { "attn_config.kv_n_heads", 1 },
			       { "ffn_config.ffn_hidden_size", 3584 }, { "ffn_config.moe_num_experts", 4 },
			       { "ffn_config.moe_top_k", 1 }) },
	/*
	 * Baichuan 1 and 2 (remote code): Llama's layers (W_pack is Q, K and V
	 * fused, without biases; Baichuan 2's NormHead a plain matrix). Each
	 * release's BaichuanConfig has defaults of its own (7B's 4096 x 32,
	 * 13B's 5120 x 40): none are assumed.
	 */
	{ .gguf = "baichuan", .model_types = { "baichuan" } },
	/*
	 * ChatGLM 2 and 3 and GLM-4's first format (ChatGLMConfig, remote code:
	 * num_layers, padded_vocab_size, kv_channels, ffn_hidden_size,
	 * seq_length): RMSNorms, a gated MLP (dense_h_to_4h is both halves),
	 * add_qkv_bias and add_bias_linear; its own defaults are not assumed.
	 */
	{ .model_types = { "chatglm" }, .bias_key = "add_bias_linear", .qkv_bias_key = "add_qkv_bias",
	  .kv_heads_key = "multi_query_group_num", .kv_heads_if = "multi_query_attention" },
	/*
	 * Glm4Config's (GLM-4-0414) and GlmConfig's (GLM-4's transformers
	 * format): Q, K and V biases where attention_bias says (O has none), a
	 * fused gated MLP; GLM-4-0414 norms after attention and MLP too.
	 */
	{ .gguf = "glm4", .model_types = { "glm4" }, .sandwich_norm = true, .qkv_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 151552 }, { "hidden_size", 4096 }, { "intermediate_size", 13696 },
			       { "num_hidden_layers", 40 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 2 }, { "head_dim", 128 },
			       { "max_position_embeddings", 131072 }, { "attention_bias", 1 }) },
	{ .model_types = { "glm" }, .qkv_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 151552 }, { "hidden_size", 4096 }, { "intermediate_size", 13696 },
			       { "num_hidden_layers", 40 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 2 }, { "head_dim", 128 },
			       { "max_position_embeddings", 131072 }, { "attention_bias", 1 }) },
	{ .gguf = "glm4moe" },
	/*
	 * GptOssConfig's: every other layer in a window (layer_types), Q, K, V
	 * and O biases (attention_bias), a sink per head in each layer
	 * (GptOssAttention's sinks), a router with its bias and experts whose
	 * gate_up_proj and down_proj have biases (GptOssExperts). Its
	 * config.json names its whole shape: no defaults are assumed.
	 */
	{ .gguf = "gpt-oss", .model_types = { "gpt_oss" }, .swa_pattern = 2, .attention_bias_key = "attention_bias",
	  .sinks = true, .moe_bias = true },
	/* SmolLM3Config's: Llama's layers, its head tied by default. */
	{ .gguf = "smollm3", .model_types = { "smollm3" }, .tied = true, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "vocab_size", 128256 }, { "hidden_size", 2048 }, { "intermediate_size", 11008 },
			       { "num_hidden_layers", 36 }, { "num_attention_heads", 16 },
			       { "num_key_value_heads", 4 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }) },
	/*
	 * Falcon-Mamba is mamba in GGUF, and MambaConfig's shape. The state's
	 * own defaults (state_size, conv_kernel, expand) are config.c's
	 * read_recurrent's.
	 */
	{ .gguf = "mamba", .model_types = { "mamba", "falcon_mamba" }, .recurrent = true, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 50280 }, { "hidden_size", 768 }, { "num_hidden_layers", 32 }) },
	/*
	 * Mamba2Config's (configuration_mamba2.py): every layer a Mamba-2
	 * mixer of num_heads x head_dim (expand x width), n_groups of B and C.
	 */
	{ .gguf = "mamba2", .model_types = { "mamba2" }, .recurrent = true, .hybrid = HYBRID_MAMBA2,
	  .defaults = DEFAULTS({ "vocab_size", 32768 }, { "hidden_size", 4096 }, { "num_hidden_layers", 64 },
			       { "num_heads", 128 }, { "head_dim", 64 }, { "state_size", 128 }, { "expand", 2 },
			       { "conv_kernel", 4 }, { "n_groups", 8 }, { "use_bias", 0 }, { "use_conv_bias", 1 }) },
	/*
	 * NemotronHConfig's (Nemotron-H, NVIDIA-Nemotron-Nano-v2, Nemotron 3):
	 * hybrid_override_pattern's letters, M a Mamba-2 mixer, * attention,
	 * - an MLP (up and down, relu²), E a mixture of such experts with a
	 * shared one; one norm each. Its configs name their whole shape: no
	 * defaults are assumed. llama.cpp: a layer with neither KV heads nor a
	 * feed-forward is recurrent.
	 */
	{ .gguf = "nemotron_h", .model_types = { "nemotron_h" }, .hybrid = HYBRID_NEMOTRON_H, .plain_mlp = true,
	  .gguf_recurrent = RECURRENT_NO_KV_NO_FF },
	{ .gguf = "nemotron_h_moe", .hybrid = HYBRID_NEMOTRON_H, .gguf_recurrent = RECURRENT_NO_KV_NO_FF },
	/* GGUF's hybrids (llama.cpp's recurrent_layer_arr): layers without KV heads are recurrent. */
	/*
	 * JambaConfig's: attention where layer % attn_layer_period is
	 * attn_layer_offset, else a Mamba (1) mixer with norms on dt, B and C;
	 * a mixture of experts where layer % expert_layer_period is
	 * expert_layer_offset, else a gated MLP; two norms a layer.
	 */
	{ .gguf = "jamba", .model_types = { "jamba" }, .hybrid = HYBRID_JAMBA,
	  .defaults = DEFAULTS({ "vocab_size", 65536 }, { "hidden_size", 4096 }, { "intermediate_size", 14336 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 8 }, { "max_position_embeddings", 262144 },
			       { "num_experts_per_tok", 2 }, { "num_experts", 16 }, { "expert_layer_period", 2 },
			       { "expert_layer_offset", 1 }, { "attn_layer_period", 8 }, { "attn_layer_offset", 4 },
			       { "mamba_d_state", 16 }, { "mamba_d_conv", 4 }, { "mamba_expand", 2 },
			       { "mamba_conv_bias", 1 }, { "mamba_proj_bias", 0 }) },
	/*
	 * GraniteMoeHybridConfig's (Granite 4.0 H): layer_types' "mamba" a
	 * Mamba-2 mixer (mamba_expand x width, mamba_n_heads, mamba_n_groups,
	 * mamba_d_state), "attention" attention; every layer a mixture of
	 * num_local_experts (gate and up at once) with a shared MLP of
	 * shared_intermediate_size, or that MLP alone where there are no
	 * experts. Its config names its shape; the mixer's defaults are the
	 * class's (mamba_d_conv 4, mamba_expand 2, mamba_n_groups 1, a
	 * convolution's bias, no projection's).
	 */
	/*
	 * DeciLMConfig's (Llama-Nemotron Super, Ultra, Nano: nemotron-nas), a
	 * LlamaConfig with each layer's own block_configs entry: attention with
	 * its own KV heads, or a linear layer, or none; a gated MLP as wide as
	 * its ffn_mult says, or a linear layer, or none (config.c's read_nas).
	 */
	{ .model_types = { "nemotron-nas" }, .hybrid = HYBRID_NEMOTRON_NAS,
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 4096 }, { "num_hidden_layers", 32 },
			       { "num_attention_heads", 32 }, { "max_position_embeddings", 2048 }) },
	{ .gguf = "granitehybrid", .model_types = { "granitemoehybrid" }, .hybrid = HYBRID_GRANITE,
	  .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "mamba_d_conv", 4 }, { "mamba_expand", 2 }, { "mamba_n_groups", 1 },
			       { "mamba_conv_bias", 1 }, { "mamba_proj_bias", 0 }) },
	/*
	 * Every layer attention and a Mamba-2 mixer side by side, then a gated
	 * MLP (FalconH1Config's): the mixer mamba_d_ssm wide (else mamba_expand
	 * x width) in mamba_n_heads, its gated norm only where mamba_rms_norm
	 * says, in_proj's bias mamba_proj_bias, out_proj's projectors_bias. The
	 * defaults are the class's; the µP multipliers are no parameters.
	 */
	{ .gguf = "falcon-h1", .model_types = { "falcon_h1" }, .hybrid = HYBRID_FALCON_H1,
	  .gguf_recurrent = RECURRENT_BESIDE, .attention_bias_key = "attention_bias",
	  .defaults = DEFAULTS({ "mamba_d_state", 256 }, { "mamba_d_conv", 4 }, { "mamba_expand", 2 },
			       { "mamba_n_groups", 1 }, { "mamba_n_heads", 128 }, { "mamba_conv_bias", 1 },
			       { "mamba_proj_bias", 0 }, { "projectors_bias", 0 }, { "mamba_rms_norm", 0 },
			       { "mlp_bias", 0 }) },
	/*
	 * Zamba2Config's (configuration_zamba2.py; no GGUF architecture in
	 * llama.cpp): every layer a Mamba-2 mixer, layers_block_type's "hybrid"
	 * ones first one of num_mem_blocks shared transformer blocks, each its
	 * own linear layer and LoRA adapters (config-hybrid.c's read_zamba2).
	 * Its head is tied (PretrainedConfig's tie_word_embeddings).
	 */
	{ .model_types = { "zamba2" }, .hybrid = HYBRID_ZAMBA2, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "max_position_embeddings", 4096 }, { "hidden_size", 2560 },
			       { "num_hidden_layers", 54 }, { "mamba_d_state", 64 }, { "mamba_d_conv", 4 },
			       { "mamba_expand", 2 }, { "mamba_ngroups", 1 }, { "n_mamba_heads", 8 },
			       { "add_bias_linear", 0 }, { "num_attention_heads", 32 }, { "num_mem_blocks", 1 },
			       { "use_shared_attention_adapter", 0 }, { "adapter_rank", 128 },
			       { "use_long_context", 0 }) },
	/*
	 * ZambaConfig's (Zamba-7B-v1; no GGUF architecture in llama.cpp): every
	 * layer a Mamba mixer in n_mamba_heads heads, the hybrid ones (by
	 * attn_layer_period and attn_layer_offset) first one shared transformer
	 * block, then their own linear layer (config-hybrid.c's read_zamba). No
	 * default for num_key_value_heads: ZambaAttention needs one.
	 */
	{ .model_types = { "zamba" }, .hybrid = HYBRID_ZAMBA, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 32000 }, { "hidden_size", 3712 }, { "intermediate_size", 14848 },
			       { "num_hidden_layers", 76 }, { "num_attention_heads", 16 }, { "n_mamba_heads", 2 },
			       { "max_position_embeddings", 4096 }, { "attn_layer_period", 6 }, { "attn_layer_offset", 4 },
			       { "mamba_d_state", 16 }, { "mamba_d_conv", 4 }, { "mamba_expand", 2 },
			       { "mamba_conv_bias", 1 }, { "mamba_proj_bias", 0 }) },
	/*
	 * Qwen3NextConfig's (configuration_qwen3_next.py): gated DeltaNet in
	 * all but every full_attention_interval-th layer (or as layer_types
	 * says), attention with a gate on its output (Q twice as wide) and a
	 * norm on Q and K; a mixture of experts with a gated shared expert in
	 * every layer but mlp_only_layers' (decoder_sparse_step 1).
	 */
	{ .gguf = "qwen3next", .model_types = { "qwen3_next" }, .hybrid = HYBRID_QWEN3_NEXT,
	  .gguf_recurrent = RECURRENT_INTERVAL,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 2048 }, { "intermediate_size", 5632 },
			       { "num_hidden_layers", 48 }, { "num_attention_heads", 16 },
			       { "num_key_value_heads", 2 }, { "head_dim", 256 }, { "max_position_embeddings", 32768 },
			       { "full_attention_interval", 4 }, { "linear_conv_kernel_dim", 4 },
			       { "linear_key_head_dim", 128 }, { "linear_value_head_dim", 128 },
			       { "linear_num_key_heads", 16 }, { "linear_num_value_heads", 32 },
			       { "decoder_sparse_step", 1 }, { "moe_intermediate_size", 512 },
			       { "shared_expert_intermediate_size", 512 }, { "num_experts_per_tok", 10 },
			       { "num_experts", 512 }) },
	{ .gguf = "rwkv6", .recurrent = true },
	{ .gguf = "rwkv7", .recurrent = true },
	/*
	 * Encoders, BertConfig's defaults (RobertaConfig and XLMRobertaConfig
	 * keep them): the model transformers' AutoModel builds, its pooler
	 * included, no LM head, no KV cache.
	 */
	{ .gguf = "bert", .model_types = { "bert", "roberta", "xlm-roberta" }, .encoder = true, .plain_mlp = true,
	  .linear_bias = true, .layer_norm = true, .positions = true, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 30522 }, { "hidden_size", 768 }, { "intermediate_size", 3072 },
			       { "num_hidden_layers", 12 }, { "num_attention_heads", 12 },
			       { "max_position_embeddings", 512 }, { "type_vocab_size", 2 }) },
	{ .gguf = "nomic-bert" },
	/*
	 * Encoder-decoders (config-encoder-decoder.c), from config.json alone:
	 * llama.cpp's t5 GGUF is not read as one (its cross-attention cache is
	 * not priced there), so no GGUF name. T5Config's defaults (t5-small's
	 * shape; feed_forward_proj "relu", tied). T5Config has no context of its
	 * own (relative positions): n_positions, which t5-*'s configs write, else
	 * the 512 tokens of input T5 was trained on.
	 */
	{ .model_types = { "t5" }, .encdec = ENCDEC_T5, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 32128 }, { "d_model", 512 }, { "d_kv", 64 }, { "d_ff", 2048 },
			       { "num_layers", 6 }, { "num_heads", 8 }, { "relative_attention_num_buckets", 32 },
			       { "n_positions", 512 }) },
	/* MT5Config's (T5 v1.1's shape: feed_forward_proj "gated-gelu", untied). */
	{ .model_types = { "mt5" }, .encdec = ENCDEC_MT5,
	  .defaults = DEFAULTS({ "vocab_size", 250112 }, { "d_model", 512 }, { "d_kv", 64 }, { "d_ff", 1024 },
			       { "num_layers", 8 }, { "num_heads", 6 }, { "relative_attention_num_buckets", 32 },
			       { "n_positions", 512 }) },
	/* UMT5Config's: mT5's, with a relative attention bias in every layer. */
	{ .model_types = { "umt5" }, .encdec = ENCDEC_UMT5,
	  .defaults = DEFAULTS({ "vocab_size", 250112 }, { "d_model", 512 }, { "d_kv", 64 }, { "d_ff", 1024 },
			       { "num_layers", 8 }, { "num_heads", 6 }, { "relative_attention_num_buckets", 32 },
			       { "n_positions", 512 }) },
	/* BartConfig's (bart-large's shape) and MBartConfig's (the same numbers), both tied. */
	{ .model_types = { "bart" }, .encdec = ENCDEC_BART, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 50265 }, { "d_model", 1024 }, { "encoder_layers", 12 },
			       { "decoder_layers", 12 }, { "encoder_attention_heads", 16 },
			       { "decoder_attention_heads", 16 }, { "encoder_ffn_dim", 4096 }, { "decoder_ffn_dim", 4096 },
			       { "max_position_embeddings", 1024 }) },
	{ .model_types = { "mbart" }, .encdec = ENCDEC_MBART, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 50265 }, { "d_model", 1024 }, { "encoder_layers", 12 },
			       { "decoder_layers", 12 }, { "encoder_attention_heads", 16 },
			       { "decoder_attention_heads", 16 }, { "encoder_ffn_dim", 4096 }, { "decoder_ffn_dim", 4096 },
			       { "max_position_embeddings", 1024 }) },
	/* WhisperConfig's (whisper-tiny's shape), tied. */
	{ .model_types = { "whisper" }, .encdec = ENCDEC_WHISPER, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 51865 }, { "d_model", 384 }, { "num_mel_bins", 80 },
			       { "encoder_layers", 4 }, { "decoder_layers", 4 }, { "encoder_attention_heads", 6 },
			       { "decoder_attention_heads", 6 }, { "encoder_ffn_dim", 1536 }, { "decoder_ffn_dim", 1536 },
			       { "max_source_positions", 1500 }, { "max_target_positions", 448 }) },
};

const struct arch_info *arch_find_gguf(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].gguf && !strcmp(arches[i].gguf, name))
			return &arches[i];
	return NULL;
}

const struct arch_info *arch_find_model_type(const char *model_type)
{
	if (!model_type)
		return NULL;
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		for (size_t k = 0; k < ARCH_MAX_MODEL_TYPES && arches[i].model_types[k]; k++)
			if (!strcmp(arches[i].model_types[k], model_type))
				return &arches[i];
	return NULL;
}
