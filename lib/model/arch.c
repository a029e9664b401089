/*
 * The architectures hmn knows: one entry each, under the name a GGUF gives
 * it (general.architecture, llama.cpp's) and the names a config.json does
 * (model_type, transformers'), where the one is the other's model. llama.cpp
 * converts some model_types to another's architecture (Mistral and Mixtral
 * to llama, DeepSeek-V3 to deepseek2): those that transformers gives
 * defaults of their own keep an entry of their own, without a GGUF name.
 *
 * Each reader looks an architecture up by its own names alone: one that
 * GGUF names and config.json does not (llama4, cohere2, mamba2) is unknown
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
 * layers and the defaults of its configuration_*.py. An architecture not
 * here is read as a plain transformer, with a warning.
 */
static const struct arch_info arches[] = {
	{ .gguf = "llama", .model_types = { "llama" },
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
	{ .gguf = "llama4", .swa_pattern = 4 },
	{ .gguf = "mistral3" },
	{ .gguf = "qwen2", .model_types = { "qwen2" }, .qkv_bias = true,
	  .defaults = DEFAULTS({ "vocab_size", 151936 }, { "hidden_size", 4096 }, { "intermediate_size", 22016 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "num_key_value_heads", 32 }, { "max_position_embeddings", 32768 },
			       { "use_sliding_window", 0 }, { "sliding_window", 4096 }) },
	/* Qwen2-VL's and Qwen2.5-VL's text models are Qwen2's (Q, K and V biased); Qwen2VLTextConfig's defaults. */
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
	{ .gguf = "cohere2", .swa_pattern = 4 },
	{ .gguf = "command-r" },
	{ .gguf = "phi2" },
	{ .gguf = "phi3", .model_types = { "phi3" },
	  .defaults = DEFAULTS({ "vocab_size", 32064 }, { "hidden_size", 3072 }, { "intermediate_size", 8192 },
			       { "num_hidden_layers", 32 }, { "num_attention_heads", 32 },
			       { "max_position_embeddings", 4096 }) },
	{ .gguf = "phimoe" },
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
	{ .gguf = "starcoder2" },
	{ .gguf = "falcon" },
	{ .gguf = "stablelm" },
	{ .gguf = "internlm2" },
	{ .gguf = "olmo" },
	{ .gguf = "olmo2" },
	{ .gguf = "olmoe" },
	{ .gguf = "granite" },
	{ .gguf = "granitemoe" },
	{ .gguf = "exaone" },
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
	{ .gguf = "glm4" },
	{ .gguf = "glm4moe" },
	{ .gguf = "gpt-oss", .swa_pattern = 2 },
	{ .gguf = "smollm3" },
	/*
	 * Falcon-Mamba is mamba in GGUF, and MambaConfig's shape. The state's
	 * own defaults (state_size, conv_kernel, expand) are config.c's
	 * read_recurrent's.
	 */
	{ .gguf = "mamba", .model_types = { "mamba", "falcon_mamba" }, .recurrent = true, .tied = true,
	  .defaults = DEFAULTS({ "vocab_size", 50280 }, { "hidden_size", 768 }, { "num_hidden_layers", 32 }) },
	{ .gguf = "mamba2", .recurrent = true },
	{ .gguf = "rwkv6", .recurrent = true },
	{ .gguf = "rwkv7", .recurrent = true },
	{ .gguf = "bert" },
	{ .gguf = "nomic-bert" },
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
