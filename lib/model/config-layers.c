/*
 * A transformer's layers from config.json: their count, width, vocabulary
 * and trained context (read by every family), then the layers of a plain
 * decoder: which attend and which are cross-attention, latent attention
 * (DeepSeek's MLA), heads and KV heads, the feed-forward, the experts.
 * The hybrids (config-hybrid.c) read their attention here too.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config-layers.h"

/*
 * The context rope_scaling stretches the trained one to, by vLLM's rule
 * (ModelConfig's _get_and_verify_max_len, vllm/config.py): its "su",
 * "longrope" and "llama3" are already in max_position_embeddings (Llama
 * 3.1's 131072, Phi-3's longrope, EXAONE 4.0's 65536 of llama3 x 16 of
 * 8192) and stretch nothing; any other type is the factor (1 unless named)
 * times the trained context (dynamic NTK, linear), and YaRN's the factor
 * times its original_max_position_embeddings (Qwen 2.5's 32768 x 4,
 * DeepSeek-V3's 4096 x 40). Gemma 3's factor is in its max_position_embeddings
 * (vLLM skips every model_type with "gemma3" in it). The type is rope_type,
 * else type (transformers' older name). Numbers are checked: a factor
 * outside [1, 1024], a YaRN without a whole original, or a product past
 * MODEL_MAX_CONTEXT leave the trained context as it is.
 */
static uint64_t context_scaled(const struct config *c, uint64_t context)
{
	const cJSON *rope = cJSON_GetObjectItemCaseSensitive(c->text, "rope_scaling");
	/* transformers 5 writes it as rope_parameters ("default" where nothing stretches). */
	if (!cJSON_IsObject(rope))
		rope = cJSON_GetObjectItemCaseSensitive(c->text, "rope_parameters");
	if (!cJSON_IsObject(rope) || (c->model_type && strstr(c->model_type, "gemma3")))
		return context;
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(rope, "rope_type");
	if (!type)
		type = cJSON_GetObjectItemCaseSensitive(rope, "type");
	if (!cJSON_IsString(type))
		return context;
	const char *name = type->valuestring;
	if (!strcmp(name, "su") || !strcmp(name, "longrope") || !strcmp(name, "llama3"))
		return context;
	const cJSON *factor = cJSON_GetObjectItemCaseSensitive(rope, "factor");
	double times = 1.0, base = (double)context;
	if (factor) {
		if (!cJSON_IsNumber(factor) || !(factor->valuedouble >= 1.0 && factor->valuedouble <= 1024))
			return context;
		times = factor->valuedouble;
	}
	if (!strcmp(name, "yarn")) {
		const cJSON *original = cJSON_GetObjectItemCaseSensitive(rope, "original_max_position_embeddings");
		if (!cJSON_IsNumber(original) || !(original->valuedouble >= 1) ||
		    original->valuedouble > MODEL_MAX_CONTEXT || original->valuedouble != floor(original->valuedouble))
			return context;
		base = original->valuedouble;
	}
	double scaled = base * times;
	return scaled >= 1 && scaled <= (double)MODEL_MAX_CONTEXT ? (uint64_t)scaled : context;
}

/*
 * The trained context: the least of the keys vLLM's _get_and_verify_max_len
 * reads for it (its possible_keys), as vLLM takes it; each key's number
 * checked as any other. Qwen (v1) writes max_position_embeddings 32768 and
 * seq_length 8192, its real one: the first key present said 32768. None
 * written: the family's default; 0 where there is none (Mamba's).
 */
static int read_context(const struct config *c, uint64_t *ret)
{
	static const char *const keys[] = { "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
					    "model_max_length", "max_sequence_length", "max_seq_length", "seq_len",
					    NULL };
	uint64_t least = 0;
	for (const char *const *k = keys; *k; k++) {
		uint64_t v;
		const cJSON *value = config_lookup(c, *k, NULL);
		if (!value)
			continue;
		if (k == keys) {
			int r = config_number(c, KEYS(*k), 1, MODEL_MAX_CONTEXT, &v);
			if (r < 0)
				return r;
		} else {
			/*
			 * The others as vLLM's min() passes over what is no length:
			 * transformers' 1e30 for "not set", -1, 4096.5.
			 */
			double d = cJSON_IsNumber(value) ? value->valuedouble : 0;
			if (!(d >= 1 && d <= (double)MODEL_MAX_CONTEXT && d == floor(d)))
				continue;
			v = (uint64_t)d;
		}
		if (!least || v < least)
			least = v;
	}
	if (least) {
		*ret = least;
		return 0;
	}
	return config_optional(c, keys, 1, MODEL_MAX_CONTEXT, 0, ret);
}

/* Layers, width, vocabulary, trained context, tied embeddings: what every family has. */
int config_read_common(const struct config *c, const struct arch_info *f, struct hmn_model *m,
		       struct shape *s)
{
	uint64_t layers, context;
	int r;

	if ((r = config_required(c, LAYER_KEYS, 1, MODEL_MAX_LAYERS,
				 &layers)) < 0 ||
	    (r = config_required(c, WIDTH_KEYS, 1, MODEL_MAX_WIDTH, &s->h)) < 0 ||
	    (r = config_required(c, VOCAB_KEYS, 1, MODEL_MAX_WIDTH, &s->vocab)) < 0 ||
	    /* Absent (Mamba's), hmn fit asks for --context. */
	    (r = read_context(c, &context)) < 0 ||
	    (r = config_flag(c, "tie_word_embeddings", f ? f->tied : false, &s->tied)) < 0)
		return r;
	m->n_layer = (uint32_t)layers;
	m->n_embd = (uint32_t)s->h;
	m->n_vocab = (uint32_t)s->vocab;
	m->context_length = context;
	m->context_limit = context ? context_scaled(c, context) : 0;
	s->positions = f && f->positions ? context : 0;
	m->learned_positions = s->positions != 0;
	return 0;
}

/* DeepSeek's latent attention: with a kv_lora_rank, the heads' widths are its own keys. */
static int read_mla(const struct config *c, struct hmn_model *m, struct shape *s)
{
	uint64_t rank;
	int r;

	/* 0 or null: no latent attention. */
	if ((r = config_optional(c, KEYS("kv_lora_rank"), 0, MODEL_MAX_WIDTH, 0, &rank)) < 0)
		return r;
	if (!rank)
		return 0;
	if ((r = config_optional(c, KEYS("q_lora_rank"), 0, MODEL_MAX_WIDTH, 0, &s->q_lora)) < 0 ||
	    (r = config_required(c, KEYS("qk_nope_head_dim"), 1, MODEL_MAX_WIDTH, &s->nope)) < 0 ||
	    (r = config_required(c, KEYS("qk_rope_head_dim"), 1, MODEL_MAX_WIDTH, &s->rope)) < 0 ||
	    (r = config_required(c, KEYS("v_head_dim"), 1, MODEL_MAX_WIDTH, &s->v_head)) < 0)
		return r;
	m->kv_lora_rank = (uint32_t)rank;
	m->rope_dim = (uint32_t)s->rope;
	return 0;
}

/*
 * The KV heads: num_key_value_heads, else as many as the heads; ChatGLM's
 * multi_query_group_num where multi_query_attention says so. Falcon's
 * first format and FalconConfig's default share one (multi_query), whatever
 * num_kv_heads says, unless new_decoder_architecture (modeling_falcon.py's
 * FalconAttention).
 */
static int read_kv_heads(const struct config *c, const struct arch_info *f, uint64_t heads, uint64_t *ret,
			 const char **ret_key)
{
	bool new_arch, multi_query;
	int r;

	*ret_key = "num_key_value_heads";
	if (f && f->kv_heads_key) {
		bool grouped = true;
		if (f->kv_heads_if && (r = config_flag(c, f->kv_heads_if, false, &grouped)) < 0)
			return r;
		*ret_key = f->kv_heads_key;
		if (grouped)
			return config_optional(c, KEYS(f->kv_heads_key), 1, MODEL_MAX_WIDTH, heads, ret);
		*ret = heads;
		return 0;
	}
	if (!f || !f->falcon) {
		*ret_key = config_key_written(c, KEYS("num_key_value_heads", "num_kv_heads"));
		return config_optional(c, KEYS("num_key_value_heads", "num_kv_heads"), 1, MODEL_MAX_WIDTH, heads, ret);
	}
	if ((r = config_flag(c, "new_decoder_architecture", false, &new_arch)) < 0 ||
	    (r = config_flag(c, "multi_query", true, &multi_query)) < 0)
		return r;
	*ret_key = config_key_written(c, KEYS("num_kv_heads", "n_head_kv"));
	if (new_arch)
		return config_optional(c, KEYS("num_kv_heads", "n_head_kv"), 1, MODEL_MAX_WIDTH, heads, ret);
	*ret = multi_query ? 1 : heads;
	return 0;
}

/*
 * How each layer is built beyond its matrices: its norms, its biases, an
 * encoder's token types, each from the family's own key where it has one
 * (arch_info's *_key), else its table's flag. Falcon's new decoder
 * architecture has two norms unless num_ln_in_parallel_attn says one
 * (Falcon2-11B).
 */
static int read_layers(const struct config *c, const struct arch_info *f, struct shape *s)
{
	bool parallel = f && f->parallel, new_arch = false, attention_bias = false;
	uint64_t in_parallel = 1;
	int r;

	s->bias = f && f->linear_bias;
	s->qkv_bias = f && f->qkv_bias;
	s->qk_norm = f && f->qk_norm;
	s->output_bias = f && f->output_bias;
	if (!f)
		goto done;
	if (f->unread_key) {
		const char *where = "";
		const cJSON *v = config_lookup(c, f->unread_key, &where);
		if (v && !cJSON_IsNull(v))
			return model_fail(c->e, -EINVAL, "%s: %s%s: hmn reads the width from %s alone for model_type %s",
					  c->file, where, f->unread_key, "ff_intermediate_size", c->model_type);
	}
	if ((f->output_bias_key && (r = config_flag(c, f->output_bias_key, s->output_bias, &s->output_bias)) < 0) ||
	    (f->bias_key && (r = config_flag(c, f->bias_key, s->bias, &s->bias)) < 0) ||
	    (f->attention_bias_key && (r = config_flag(c, f->attention_bias_key, false, &attention_bias)) < 0) ||
	    (f->qkv_bias_key && (r = config_flag(c, f->qkv_bias_key, s->qkv_bias, &s->qkv_bias)) < 0) ||
	    (f->parallel_key && (r = config_flag(c, f->parallel_key, parallel, &parallel)) < 0) ||
	    (f->qk_norm_key && (r = config_flag(c, f->qk_norm_key, s->qk_norm, &s->qk_norm)) < 0))
		return r;
	if (f->falcon &&
	    ((r = config_flag(c, "new_decoder_architecture", false, &new_arch)) < 0 ||
	     (r = config_optional(c, KEYS("num_ln_in_parallel_attn"), 1, 2, new_arch ? 2 : 1, &in_parallel)) < 0))
		return r;
	if (f->encoder && (r = config_optional(c, KEYS("type_vocab_size"), 0, MODEL_MAX_WIDTH, 0, &s->types)) < 0)
		return r;
done:
	s->qkv_bias = s->qkv_bias || s->bias || attention_bias;
	s->o_bias = s->bias || attention_bias;
	s->norms = f && f->sandwich_norm ? 4 : parallel ? (unsigned)in_parallel : 2;
	return 0;
}

/*
 * The heads and the feed-forward. Without head_dim the heads split the
 * width, so they must divide it (Gemma says head_dim: 8 heads of 256 in
 * 2304); the KV heads are shared by groups of heads, so they divide those.
 */
int config_read_attention(const struct config *c, const struct arch_info *f, struct hmn_model *m,
			  struct shape *s)
{
	uint64_t heads, kv, head_dim, ff;
	/* The keys as this config names them, for the rules' messages (Falcon's n_head_kv, ChatGLM's). */
	struct shape_names names = c->names;
	int r;

	names.heads = config_key_written(c, HEAD_KEYS);
	if (c->bound && (r = config_optional(c, HEAD_KEYS, 1, MODEL_MAX_WIDTH, 0, &heads)) < 0)
		return r;
	if (c->bound && !heads) {
		/*
		 * One head as wide as the model: K and V as a full multi-head
		 * attention keeps them, the most of the layouts that split the width.
		 */
		s->heads_bounded = true;
		heads = kv = 1;
		head_dim = s->h;
	} else if ((!c->bound && (r = config_required(c, HEAD_KEYS, 1, MODEL_MAX_WIDTH, &heads)) < 0) ||
		   (r = read_kv_heads(c, f, heads, &kv, &names.kv_heads)) < 0 ||
		   (r = model_check_kv_heads(&names, heads, kv, -1, c->e)) < 0 ||
		   /* kv_channels: ChatGLM's and Qwen's first's name for it. */
		   (r = config_number(c, KEYS("head_dim", "kv_channels", "attention_head_dim"), 1, MODEL_MAX_WIDTH,
				       &head_dim)) < 0) {
		return r;
	}
	if (r == 0 && !s->heads_bounded) {
		bool latent = m->kv_lora_rank != 0;
		names.width = config_key_written(c, WIDTH_KEYS);
		if ((r = model_check_heads_split(&names, heads, s->h, false, latent, c->e)) < 0)
			return r;
		head_dim = s->h / heads;
	}
	/* GPT-2 and GPT-NeoX write none (n_inner: null) for their 4 × width. */
	/* Nemotron-NAS writes none (intermediate_size: null): each layer's is its block_configs'. */
	if ((f && (f->plain_mlp || f->hybrid == HYBRID_NEMOTRON_NAS)) || c->bound)
		r = config_optional(c, FF_KEYS, 1, MODEL_MAX_WIDTH, 4 * s->h, &ff);
	else
		r = config_required(c, FF_KEYS, 1, MODEL_MAX_WIDTH, &ff);
	if (r < 0)
		return r;
	m->n_head = (uint32_t)heads;
	/* An encoder attends to the whole input at once: its K and V are never kept. */
	m->n_head_kv = f && f->encoder ? 0 : (uint32_t)kv;
	s->kv_heads = kv;
	m->key_length = m->value_length = (uint32_t)head_dim;
	if (m->kv_lora_rank) {
		m->key_length = (uint32_t)(s->nope + s->rope);
		m->value_length = (uint32_t)s->v_head;
	}
	s->ff = ff;
	m->n_ff = (uint32_t)ff;
	return 0;
}

/* A mixture of experts; 0 or null experts: a dense model. */
static int read_experts(const struct config *c, struct hmn_model *m, struct shape *s)
{
	uint64_t experts, used, shared;
	int r;

	if ((r = config_optional(c, KEYS("num_local_experts", "n_routed_experts", "num_experts", "ffn_config.moe_num_experts"), 0, MODEL_MAX_WIDTH,
				 0, &experts)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts_per_tok", "num_experts_per_token", "ffn_config.moe_top_k"), 0, MODEL_MAX_WIDTH, 0,
				 &used)) < 0 ||
	    (r = config_optional(c, KEYS("moe_intermediate_size"), 1, MODEL_MAX_WIDTH, s->ff, &s->ff_moe)) < 0 ||
	    (r = config_optional(c, KEYS("n_shared_experts"), 0, MODEL_MAX_WIDTH, 0, &shared)) < 0 ||
	    (r = config_optional(c, KEYS("shared_expert_intermediate_size"), 0, MODEL_MAX_WIDTH,
				 sat_mul(shared, s->ff_moe), &s->ff_shared)) < 0 ||
	    (r = config_optional(c, KEYS("first_k_dense_replace"), 0, MODEL_MAX_LAYERS, 0, &s->first_dense)) < 0)
		return r;
	if ((r = model_check_experts(&c->names, experts, used, c->e)) < 0)
		return r;
	m->n_expert = (uint32_t)experts;
	m->n_expert_used = (uint32_t)used;
	m->n_ff_expert = experts ? (uint32_t)s->ff_moe : 0;
	m->n_shared_expert = (uint32_t)shared;
	return 0;
}

/* A transformer's layers: their count and kinds, latent attention, the heads, the experts. */
int config_read_transformer(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	int r;
	if ((r = read_layers(c, f, s)) < 0 || (r = read_mla(c, m, s)) < 0 || (r = config_read_attention(c, f, m, s)) < 0)
		return r;
	return read_experts(c, m, s);
}
