/*
 * The hybrids' config.json (arch_info.hybrid): layers of Mamba mixers,
 * gated DeltaNet, attention, MLPs and experts, each layer's kinds from the
 * config's own keys (Nemotron-H's pattern, Jamba's periods, Qwen3-Next's
 * layer_types, Llama 4's lists, Nemotron-NAS's block_configs, Falcon-H1's
 * mixer beside attention), and Mamba's recurrent state.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config-hybrid.h"

/* Mamba's state instead of heads; the defaults are transformers' MambaConfig's. */
int config_read_recurrent(const struct config *c, struct hmn_model *m, struct shape *s)
{
	uint64_t state, conv, inner, groups, rank = (s->h + 15) / 16;
	int r;

	if ((r = config_optional(c, KEYS("state_size"), 1, MODEL_MAX_WIDTH, 16, &state)) < 0 ||
	    (r = config_optional(c, KEYS("conv_kernel"), 1, MODEL_MAX_WIDTH, 4, &conv)) < 0 ||
	    (r = config_optional(c, KEYS("intermediate_size"), 1, MODEL_MAX_WIDTH, 2 * s->h, &inner)) < 0 ||
	    (r = config_optional(c, KEYS("n_groups"), 0, MODEL_MAX_WIDTH, 0, &groups)) < 0)
		return r;
	/* "auto" is MambaConfig's own word for the default. */
	const cJSON *t = config_lookup(c, "time_step_rank", NULL);
	if (!(cJSON_IsString(t) && !strcmp(t->valuestring, "auto")) &&
	    (r = config_optional(c, KEYS("time_step_rank"), 1, MODEL_MAX_WIDTH, rank, &rank)) < 0)
		return r;
	m->ssm_state = (uint32_t)state;
	m->ssm_conv = (uint32_t)conv;
	m->ssm_inner = (uint32_t)inner;
	m->ssm_group = (uint32_t)groups;
	m->n_ff = (uint32_t)inner;
	s->ff = inner;
	s->rope = rank; /* time_step_rank, kept in rope for Mamba */
	m->n_head = m->n_head_kv = 0;
	m->key_length = m->value_length = 0;
	return 0;
}

/*
 * Nemotron-H's hybrid_override_pattern: a letter for each layer (M, *, -,
 * E), as many as its layers; another letter or count is malformed.
 */
static int read_pattern(const struct config *c, const struct hmn_model *m, struct shape *s)
{
	const char *where = "";
	const cJSON *v = config_lookup(c, "hybrid_override_pattern", &where);
	char shown[64];
	if (!v)
		return model_fail(c->e, -EINVAL, "%s: key hybrid_override_pattern is missing for model_type %s", c->file,
				  c->model_type);
	config_describe(v, shown, sizeof(shown));
	if (!cJSON_IsString(v))
		return model_fail(c->e, -EINVAL, "%s: %shybrid_override_pattern: %s is not a pattern of layers", c->file,
				  where, shown);
	size_t len = strlen(v->valuestring);
	if (len != m->n_layer)
		return model_fail(c->e, -EINVAL, "%s: %shybrid_override_pattern has %zu letters for %u layers", c->file,
				  where, len, m->n_layer);
	for (size_t i = 0; i < len; i++) {
		char l = v->valuestring[i];
		unsigned part = l == 'M' ? HY_SSM : l == '*' ? HY_ATTN : l == '-' ? HY_MLP : l == 'E' ? HY_MOE : 0;
		if (!part)
			return model_fail(c->e, -EINVAL, "%s: %shybrid_override_pattern[%zu]: '%s' is not M, *, - or E",
					  c->file, where, i, SHOWN(((char[2]){ l, 0 })));
		s->parts[i] = (unsigned char)part;
	}
	return 0;
}

/*
 * A Mamba mixer's keys under one family's names: each family names the same
 * few numbers its own way (Mamba2Config's num_heads, NemotronHConfig's
 * mamba_num_heads, Granite's and Falcon-H1's mamba_n_heads ...). NULL: the
 * family has no such key.
 */
struct mamba_keys {
	const char *heads;     /* a Mamba-2 mixer's heads; NULL: Mamba (1), no heads */
	const char *head_dim;  /* a head's width: with no expand, the mixer is heads x it */
	const char *state, *groups, *conv;
	const char *expand;    /* the mixer is expand x the width (else heads x head_dim) */
	const char *width;     /* the mixer's width where a key can name it (Falcon-H1's mamba_d_ssm; 0 or null: none) */
	const char *chunk;     /* the scan's chunk: no parameter, only checked */
	const char *conv_bias; /* NULL: the convolution always has one */
	const char *proj_bias; /* in_proj's, and out_proj's where out_bias is NULL */
	const char *out_bias;
	const char *dt_rank;   /* Mamba (1)'s time step rank: "auto" or absent is ceil(width / 16) */
	bool heads_split;      /* the heads must divide the mixer's width */
};

static const struct mamba_keys mamba2_keys = {
	.heads = "num_heads", .head_dim = "head_dim", .state = "state_size", .groups = "n_groups",
	.conv = "conv_kernel", .expand = "expand", .conv_bias = "use_conv_bias", .proj_bias = "use_bias",
};
static const struct mamba_keys nemotron_h_keys = {
	.heads = "mamba_num_heads", .head_dim = "mamba_head_dim", .state = "ssm_state_size", .groups = "n_groups",
	.conv = "conv_kernel", .conv_bias = "use_conv_bias", .proj_bias = "mamba_proj_bias",
};
static const struct mamba_keys jamba_keys = {
	.state = "mamba_d_state", .conv = "mamba_d_conv", .expand = "mamba_expand", .conv_bias = "mamba_conv_bias",
	.proj_bias = "mamba_proj_bias", .dt_rank = "mamba_dt_rank",
};
static const struct mamba_keys granite_keys = {
	.heads = "mamba_n_heads", .state = "mamba_d_state", .groups = "mamba_n_groups", .conv = "mamba_d_conv",
	.expand = "mamba_expand", .conv_bias = "mamba_conv_bias", .proj_bias = "mamba_proj_bias", .heads_split = true,
};
/* Zamba2MambaMixer's convolution has a bias whatever use_conv_bias says: no key for it. */
static const struct mamba_keys zamba2_keys = {
	.heads = "n_mamba_heads", .state = "mamba_d_state", .groups = "mamba_ngroups", .conv = "mamba_d_conv",
	.expand = "mamba_expand", .proj_bias = "add_bias_linear", .heads_split = true,
};
/* ZambaMambaMixer: Mamba (1) in n_mamba_heads heads. */
static const struct mamba_keys zamba_keys = {
	.heads = "n_mamba_heads", .state = "mamba_d_state", .conv = "mamba_d_conv", .expand = "mamba_expand",
	.conv_bias = "mamba_conv_bias", .proj_bias = "mamba_proj_bias", .dt_rank = "mamba_dt_rank", .heads_split = true,
};
static const struct mamba_keys falcon_h1_keys = {
	.heads = "mamba_n_heads", .state = "mamba_d_state", .groups = "mamba_n_groups", .conv = "mamba_d_conv",
	.expand = "mamba_expand", .width = "mamba_d_ssm", .chunk = "mamba_chunk_size", .conv_bias = "mamba_conv_bias",
	.proj_bias = "mamba_proj_bias", .out_bias = "projectors_bias", .heads_split = true,
};

/*
 * A Mamba mixer's shape under the family's key names k, each required but
 * where noted: its width (expand x the model's, or a key's, or heads x
 * head_dim) split into heads and groups of B and C, its state, its
 * convolution, its biases (the convolution's true by default, the
 * projections' false). Into m's ssm_* and s's ssm_heads, biases and (Mamba
 * 1) rope, the time step rank. A key out of bounds, a width past
 * MODEL_MAX_WIDTH or heads and groups that do not divide it are malformed,
 * said naming the key; 0 or a negative errno.
 */
static int read_mamba_mixer(const struct config *c, const struct mamba_keys *k, struct hmn_model *m, struct shape *s)
{
	uint64_t heads = 0, head_dim = 0, state, groups = 0, conv, expand = 0, inner = 0, chunk, rank = (s->h + 15) / 16;
	bool conv_bias = true, proj_bias, out_bias;
	int r;

	if ((k->heads && (r = config_required(c, KEYS(k->heads), 1, MODEL_MAX_WIDTH, &heads)) < 0) ||
	    (k->head_dim && (r = config_required(c, KEYS(k->head_dim), 1, MODEL_MAX_WIDTH, &head_dim)) < 0) ||
	    (r = config_required(c, KEYS(k->state), 1, MODEL_MAX_WIDTH, &state)) < 0 ||
	    (k->groups && (r = config_required(c, KEYS(k->groups), 1, MODEL_MAX_WIDTH, &groups)) < 0) ||
	    (r = config_required(c, KEYS(k->conv), 1, 1024, &conv)) < 0 ||
	    (k->expand && (r = config_required(c, KEYS(k->expand), 1, 1024, &expand)) < 0) ||
	    (k->width && (r = config_optional(c, KEYS(k->width), 1, MODEL_MAX_WIDTH, 0, &inner)) < 0) ||
	    (k->chunk && (r = config_optional(c, KEYS(k->chunk), 1, MODEL_MAX_CONTEXT, 0, &chunk)) < 0) ||
	    (k->conv_bias && (r = config_flag(c, k->conv_bias, true, &conv_bias)) < 0) ||
	    (r = config_flag(c, k->proj_bias, false, &proj_bias)) < 0 ||
	    (r = config_flag(c, k->out_bias ? k->out_bias : k->proj_bias, false, &out_bias)) < 0)
		return r;
	/* "auto" is the config class's own word for the default. */
	const cJSON *t = k->dt_rank ? config_lookup(c, k->dt_rank, NULL) : NULL;
	if (k->dt_rank && !(cJSON_IsString(t) && !strcmp(t->valuestring, "auto")) &&
	    (r = config_optional(c, KEYS(k->dt_rank), 1, MODEL_MAX_WIDTH, rank, &rank)) < 0)
		return r;
	/* Null or absent, the width key leaves the width to expand. */
	if (!inner)
		inner = k->expand ? sat_mul(expand, s->h) : sat_mul(heads, head_dim);
	if (inner > MODEL_MAX_WIDTH)
		return model_fail(c->e, -EINVAL, "%s: %s x %s is more than %u", c->file, k->expand ? k->expand : k->heads,
				  k->expand ? "hidden_size" : k->head_dim, MODEL_MAX_WIDTH);
	bool groups_split = groups && inner % groups == 0, split = !k->heads_split || inner % heads == 0;
	if ((groups && !groups_split) || !split)
		return model_fail(c->e, -EINVAL, "%s: %s: %" PRIu64 " does not divide the mixer's width, %" PRIu64,
				  c->file, groups && !groups_split ? k->groups : k->heads,
				  groups && !groups_split ? groups : heads, inner);
	s->ssm_heads = heads;
	s->conv_bias = conv_bias;
	s->ssm_bias = proj_bias;
	s->ssm_out_bias = out_bias;
	m->ssm_state = (uint32_t)state;
	m->ssm_conv = (uint32_t)conv;
	m->ssm_inner = (uint32_t)inner;
	m->ssm_group = (uint32_t)groups;
	if (k->dt_rank)
		s->rope = rank; /* time_step_rank, kept in rope for Mamba */
	return 0;
}

/*
 * A hybrid of Mamba-2 mixers, attention and MLPs (arch_info.hybrid): the
 * mixer's shape (Mamba2Config's keys, NemotronHConfig's mamba_*), then the
 * kinds of layer the config's own pattern says, then the attention's and
 * the MLP's shapes where it has them.
 */
/*
 * Qwen3-Next: gated DeltaNet where layer_types says "linear_attention"
 * (else all but every full_attention_interval-th layer), attention where
 * it says "full_attention"; a mixture of experts in each layer but
 * mlp_only_layers' and those decoder_sparse_step skips, else an MLP.
 */
static int read_qwen3_next(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t every, sparse_step, experts, used;
	const char *where = "";
	int r;

	if ((r = config_required(c, KEYS("linear_num_key_heads"), 1, MODEL_MAX_WIDTH, &s->gdn_k_heads)) < 0 ||
	    (r = config_required(c, KEYS("linear_key_head_dim"), 1, MODEL_MAX_WIDTH, &s->gdn_k_dim)) < 0 ||
	    (r = config_required(c, KEYS("linear_num_value_heads"), 1, MODEL_MAX_WIDTH, &s->gdn_v_heads)) < 0 ||
	    (r = config_required(c, KEYS("linear_value_head_dim"), 1, MODEL_MAX_WIDTH, &s->gdn_v_dim)) < 0 ||
	    (r = config_required(c, KEYS("linear_conv_kernel_dim"), 1, 1024, &s->gdn_conv)) < 0 ||
	    (r = config_required(c, KEYS("full_attention_interval"), 1, MODEL_MAX_LAYERS, &every)) < 0 ||
	    (r = config_required(c, KEYS("decoder_sparse_step"), 1, MODEL_MAX_LAYERS, &sparse_step)) < 0)
		return r;
	uint64_t value = sat_mul(s->gdn_v_heads, s->gdn_v_dim), key = sat_mul(s->gdn_k_heads, s->gdn_k_dim);
	if (value > MODEL_MAX_WIDTH || key > MODEL_MAX_WIDTH)
		return model_fail(c->e, -EINVAL, "%s: linear_num_%s_heads x linear_%s_head_dim is more than %u", c->file,
				  value > MODEL_MAX_WIDTH ? "value" : "key", value > MODEL_MAX_WIDTH ? "value" : "key",
				  MODEL_MAX_WIDTH);
	if (s->gdn_v_heads % s->gdn_k_heads)
		return model_fail(c->e, -EINVAL, "%s: linear_num_key_heads: %" PRIu64 " does not divide "
				  "linear_num_value_heads, %" PRIu64, c->file, s->gdn_k_heads, s->gdn_v_heads);
	/* The state, as llama.cpp sizes it: d_inner the values' width, n_group the key heads, d_state a key's width. */
	m->ssm_inner = (uint32_t)value;
	m->ssm_group = (uint32_t)s->gdn_k_heads;
	m->ssm_state = (uint32_t)s->gdn_k_dim;
	m->ssm_conv = (uint32_t)s->gdn_conv;
	const cJSON *types = config_lookup(c, "layer_types", &where);
	if (types && (!cJSON_IsArray(types) || cJSON_GetArraySize(types) != (int)m->n_layer))
		return model_fail(c->e, -EINVAL, "%s: %slayer_types is not a list of %u layer types", c->file, where,
				  m->n_layer);
	for (uint32_t i = 0; i < m->n_layer; i++) {
		bool linear = (i + 1) % every != 0;
		if (types) {
			const cJSON *t = cJSON_GetArrayItem(types, (int)i);
			if (!cJSON_IsString(t) || (strcmp(t->valuestring, "linear_attention") &&
						   strcmp(t->valuestring, "full_attention")))
				return model_fail(c->e, -EINVAL, "%s: %slayer_types[%u] is not \"linear_attention\" or "
						  "\"full_attention\"", c->file, where, i);
			linear = !strcmp(t->valuestring, "linear_attention");
		}
		s->parts[i] = linear ? HY_GDN : HY_ATTN;
	}
	const cJSON *dense = config_lookup(c, "mlp_only_layers", &where);
	if (dense && !cJSON_IsArray(dense))
		return model_fail(c->e, -EINVAL, "%s: %smlp_only_layers is not a list of layers", c->file, where);
	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts"), 0, MODEL_MAX_WIDTH, 0, &experts)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts_per_tok"), 0, MODEL_MAX_WIDTH, 0, &used)) < 0 ||
	    (r = config_required(c, KEYS("moe_intermediate_size"), 1, MODEL_MAX_WIDTH, &s->ff_moe)) < 0 ||
	    (r = config_optional(c, KEYS("shared_expert_intermediate_size"), 0, MODEL_MAX_WIDTH, 0, &s->ff_shared)) < 0 ||
	    (r = model_check_experts(&c->names, experts, used, c->e)) < 0)
		return r;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		bool moe = experts && (i + 1) % sparse_step == 0;
		const cJSON *l;
		cJSON_ArrayForEach(l, dense) {
			if (!cJSON_IsNumber(l) || !(l->valuedouble >= 0) || l->valuedouble != floor(l->valuedouble) ||
			    l->valuedouble >= m->n_layer)
				return model_fail(c->e, -EINVAL, "%s: %smlp_only_layers: an entry is not one of its %u layers",
						  c->file, where, m->n_layer);
			if ((uint32_t)l->valuedouble == i)
				moe = false;
		}
		s->parts[i] |= moe ? HY_MOE : HY_MLP;
	}
	m->n_expert = (uint32_t)experts;
	m->n_expert_used = (uint32_t)used;
	m->n_ff_expert = experts ? (uint32_t)s->ff_moe : 0;
	m->n_shared_expert = s->ff_shared ? 1 : 0;
	s->gated = s->q_gate = s->qk_norm = s->shared_gate = true;
	return 0;
}

/*
 * One of Llama 4's per-layer lists (moe_layers: indices; no_rope_layers: a
 * 0 or 1 each): into flags, n_layer of them. Absent: 0, flags untouched.
 */
static int llama4_list(const struct config *c, const char *key, bool indices, const struct hmn_model *m, bool *flags)
{
	const char *where = "";
	const cJSON *list = config_lookup(c, key, &where), *v;
	if (!list)
		return 0;
	if (!cJSON_IsArray(list) || (!indices && cJSON_GetArraySize(list) != (int)m->n_layer))
		return model_fail(c->e, -EINVAL, "%s: %s%s is not a list of %s", c->file, where, key,
				  indices ? "layers" : "a 0 or 1 for each layer");
	if (indices)
		memset(flags, 0, m->n_layer);
	size_t i = 0;
	cJSON_ArrayForEach(v, list) {
		double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
		if (!(d >= 0) || d != floor(d) || d >= (indices ? m->n_layer : 2))
			return model_fail(c->e, -EINVAL, "%s: %s%s[%zu] is not %s", c->file, where, key, i,
					  indices ? "one of its layers" : "0 or 1");
		if (indices)
			flags[(size_t)d] = true;
		else
			flags[i] = d == 1;
		i++;
	}
	return 1;
}

/*
 * Llama 4: attention in every layer, the RoPE layers' within chunks of
 * attention_chunk_size (where it names one); a mixture of experts and its
 * shared expert (both of intermediate_size) in moe_layers', else in every
 * interleave_moe_layer_step-th; a gated MLP of intermediate_size_mlp in
 * the others.
 */
static int read_llama4(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t step, experts, used, ff_dense;
	int r;

	bool *flags = calloc(m->n_layer ? m->n_layer : 1, sizeof(*flags));
	s->chunked = calloc(m->n_layer ? m->n_layer : 1, sizeof(*s->chunked));
	if (!flags || !s->chunked) {
		free(flags);
		return -ENOMEM;
	}
	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_required(c, KEYS("interleave_moe_layer_step"), 1, MODEL_MAX_LAYERS, &step)) < 0 ||
	    (r = config_required(c, KEYS("intermediate_size_mlp"), 1, MODEL_MAX_WIDTH, &ff_dense)) < 0 ||
	    (r = config_optional(c, KEYS("num_local_experts"), 0, MODEL_MAX_WIDTH, 0, &experts)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts_per_tok"), 0, MODEL_MAX_WIDTH, 0, &used)) < 0 ||
	    (r = config_optional(c, KEYS("attention_chunk_size"), 0, UINT32_MAX, 0, &s->chunk)) < 0 ||
	    (r = model_check_experts(&c->names, experts, used, c->e)) < 0)
		goto out;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		flags[i] = i % step == step - 1;
		s->chunked[i] = (i + 1) % 4 != 0;
	}
	if ((r = llama4_list(c, "moe_layers", true, m, flags)) < 0 ||
	    (r = llama4_list(c, "no_rope_layers", false, m, s->chunked)) < 0)
		goto out;
	for (uint32_t i = 0; i < m->n_layer; i++)
		s->parts[i] = (unsigned char)(HY_ATTN | (experts && flags[i] ? HY_MOE : HY_MLP));
	s->ff_moe = s->ff_shared = s->ff;
	s->ff = ff_dense;
	m->n_ff = (uint32_t)ff_dense;
	m->n_expert = (uint32_t)experts;
	m->n_expert_used = (uint32_t)used;
	m->n_ff_expert = experts ? (uint32_t)s->ff_moe : 0;
	m->n_shared_expert = experts ? 1 : 0;
	s->gated = true;
	r = 0;
out:
	free(flags);
	return r;
}

/*
 * Jamba: attention where layer % attn_layer_period is attn_layer_offset,
 * else a Mamba mixer (its state: conv and SSM, no groups); a mixture where
 * layer % expert_layer_period is expert_layer_offset, else a gated MLP.
 * An offset must be within its period (JambaConfig refuses another).
 */
static int read_jamba(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t attn_period, attn_offset, expert_period, expert_offset, experts, used;
	int r;

	if ((r = config_required(c, KEYS("attn_layer_period"), 1, MODEL_MAX_LAYERS, &attn_period)) < 0 ||
	    (r = config_required(c, KEYS("attn_layer_offset"), 0, MODEL_MAX_LAYERS, &attn_offset)) < 0 ||
	    (r = config_required(c, KEYS("expert_layer_period"), 1, MODEL_MAX_LAYERS, &expert_period)) < 0 ||
	    (r = config_required(c, KEYS("expert_layer_offset"), 0, MODEL_MAX_LAYERS, &expert_offset)) < 0 ||
	    (r = read_mamba_mixer(c, &jamba_keys, m, s)) < 0)
		return r;
	if (attn_offset >= attn_period)
		return model_fail(c->e, -EINVAL, "%s: attn_layer_offset: %" PRIu64 " is not less than attn_layer_period, %"
				  PRIu64, c->file, attn_offset, attn_period);
	if (expert_offset >= expert_period)
		return model_fail(c->e, -EINVAL, "%s: expert_layer_offset: %" PRIu64 " is not less than "
				  "expert_layer_period, %" PRIu64, c->file, expert_offset, expert_period);
	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts"), 0, MODEL_MAX_WIDTH, 0, &experts)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts_per_tok"), 0, MODEL_MAX_WIDTH, 0, &used)) < 0 ||
	    (r = model_check_experts(&c->names, experts, used, c->e)) < 0)
		return r;
	/* JambaSparseMoeBlock of one expert is JambaMLP: a mixture of 1 is priced as one. */
	bool moe_layers = experts > 1;
	for (uint32_t i = 0; i < m->n_layer; i++)
		s->parts[i] = (unsigned char)((i % attn_period == attn_offset ? HY_ATTN : HY_MAMBA) |
					      (moe_layers && i % expert_period == expert_offset ? HY_MOE : HY_MLP));
	s->ff_moe = s->ff;
	m->n_expert = moe_layers ? (uint32_t)experts : 0;
	m->n_expert_used = moe_layers ? (uint32_t)used : 0;
	m->n_ff_expert = moe_layers ? (uint32_t)s->ff : 0;
	s->gated = true;
	return 0;
}

/*
 * Granite 4.0 H: a Mamba-2 mixer or attention as layer_types says ("mamba",
 * "attention"), and in every layer a mixture of experts with a shared MLP
 * (or the shared MLP alone).
 */
static int read_granite(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t experts, used, shared;
	const char *where = "";
	int r;

	if ((r = read_mamba_mixer(c, &granite_keys, m, s)) < 0)
		return r;
	const cJSON *types = config_lookup(c, "layer_types", &where);
	if (!types)
		return model_fail(c->e, -EINVAL, "%s: key layer_types is missing for model_type %s", c->file,
				  c->model_type);
	if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) != (int)m->n_layer)
		return model_fail(c->e, -EINVAL, "%s: %slayer_types is not a list of %u layer types", c->file, where,
				  m->n_layer);
	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_optional(c, KEYS("num_local_experts"), 0, MODEL_MAX_WIDTH, 0, &experts)) < 0 ||
	    (r = config_optional(c, KEYS("num_experts_per_tok"), 0, MODEL_MAX_WIDTH, 0, &used)) < 0 ||
	    (r = config_required(c, KEYS("shared_intermediate_size"), 1, MODEL_MAX_WIDTH, &shared)) < 0 ||
	    (r = config_flag(c, "attention_bias", false, &s->qkv_bias)) < 0 ||
	    (r = model_check_experts(&c->names, experts, used, c->e)) < 0)
		return r;
	s->o_bias = s->qkv_bias;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		const cJSON *t = cJSON_GetArrayItem(types, (int)i);
		if (!cJSON_IsString(t) || (strcmp(t->valuestring, "mamba") && strcmp(t->valuestring, "attention")))
			return model_fail(c->e, -EINVAL, "%s: %slayer_types[%u] is not \"mamba\" or \"attention\"", c->file,
					  where, i);
		s->parts[i] = (unsigned char)((!strcmp(t->valuestring, "mamba") ? HY_SSM : HY_ATTN) |
					      (experts ? HY_MOE : HY_MLP));
	}
	/* The experts are intermediate_size wide; the shared MLP (the only one without experts) its own. */
	s->ff_moe = s->ff;
	s->ff_shared = experts ? shared : 0;
	s->ff = shared;
	m->n_expert = (uint32_t)experts;
	m->n_expert_used = (uint32_t)used;
	m->n_ff_expert = experts ? (uint32_t)s->ff_moe : 0;
	m->n_shared_expert = experts ? 1 : 0;
	m->n_ff = (uint32_t)shared;
	s->gated = true;
	return 0;
}

/* block_configs[i].part.key: true or false, absent or null as false (DeciLM's AttentionConfig, FFNConfig). */
static int nas_flag(const struct config *c, const cJSON *o, const char *part, const char *key, uint32_t i, bool *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	*ret = cJSON_IsTrue(v);
	if (v && !cJSON_IsNull(v) && !cJSON_IsBool(v)) {
		char shown[64];
		config_describe(v, shown, sizeof(shown));
		return model_fail(c->e, -EINVAL, "%s: block_configs[%u].%s.%s: %s is not true or false", c->file, i, part,
				  key, shown);
	}
	return 0;
}

/*
 * Nemotron-NAS (DeciLM's modeling_decilm.py): one block_configs entry a
 * layer. Its attention is none (no_op: no norm either, and no cache), one
 * width-by-width matrix (replace_with_linear: no cache), or attention with
 * num_attention_heads / n_heads_in_group KV heads of its own; its MLP none,
 * one matrix, or gated, of _ffn_mult_to_intermediate_size(ffn_mult): int(2
 * x ffn_mult x width / 3) rounded up to a multiple of 256. A layer's window
 * (window_length), a mixture (ffn.moe) or another block format's keys would
 * be priced wrong: refused.
 */
static int read_nas(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	const char *where = "";
	bool attention_bias;
	int r;

	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_flag(c, "attention_bias", false, &attention_bias)) < 0 ||
	    (r = config_flag(c, "mlp_bias", false, &s->mlp_bias)) < 0)
		return r;
	s->qkv_bias = s->o_bias = attention_bias;
	s->gated = true;
	const cJSON *blocks = config_lookup(c, "block_configs", &where);
	if (!blocks)
		return model_fail(c->e, -EINVAL, "%s: key block_configs is missing for model_type %s", c->file,
				  c->model_type);
	if (!cJSON_IsArray(blocks) || cJSON_GetArraySize(blocks) != (int)m->n_layer)
		return model_fail(c->e, -EINVAL, "%s: %sblock_configs: not a list of one entry for each of the %u layers",
				  c->file, where, m->n_layer);
	s->layer_kv = calloc(m->n_layer ? m->n_layer : 1, sizeof(*s->layer_kv));
	s->layer_ff = calloc(m->n_layer ? m->n_layer : 1, sizeof(*s->layer_ff));
	if (!s->layer_kv || !s->layer_ff)
		return -ENOMEM;
	uint32_t i = 0, most_kv = 0;
	uint64_t widest = 0;
	const cJSON *block;
	cJSON_ArrayForEach(block, blocks) {
		const cJSON *attn = cJSON_GetObjectItemCaseSensitive(block, "attention");
		const cJSON *ffn = cJSON_GetObjectItemCaseSensitive(block, "ffn");
		bool no_op, linear, ffn_no_op, ffn_linear;
		char shown[64];
		if (!cJSON_IsObject(attn) || !cJSON_IsObject(ffn))
			return model_fail(c->e, -EINVAL, "%s: block_configs[%u]: no attention and ffn objects", c->file, i);
		if ((r = nas_flag(c, attn, "attention", "no_op", i, &no_op)) < 0 ||
		    (r = nas_flag(c, attn, "attention", "replace_with_linear", i, &linear)) < 0 ||
		    (r = nas_flag(c, ffn, "ffn", "no_op", i, &ffn_no_op)) < 0 ||
		    (r = nas_flag(c, ffn, "ffn", "replace_with_linear", i, &ffn_linear)) < 0)
			return r;
		/* What other DeciLM block configs say, of which hmn would price none right: refused when written. */
		static const char *const unread[][2] = {
			{ "attention", "window_length" }, { "attention", "llama4" }, { "attention", "mamba" },
			{ "attention", "num_key_value_heads" }, { "ffn", "moe" }, { "ffn", "intermediate_size" },
		};
		for (size_t k = 0; k < sizeof(unread) / sizeof(unread[0]); k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(unread[k][0][0] == 'a' ? attn : ffn, unread[k][1]);
			if (v && !cJSON_IsNull(v))
				return model_fail(c->e, -EINVAL, "%s: block_configs[%u].%s.%s: not a key hmn reads", c->file,
						  i, unread[k][0], unread[k][1]);
		}
		unsigned parts = no_op ? 0 : linear ? HY_LINEAR : HY_ATTN;
		parts |= ffn_no_op ? 0 : ffn_linear ? HY_LINEAR_MLP : HY_MLP;
		if (parts & HY_ATTN) {
			const cJSON *g = cJSON_GetObjectItemCaseSensitive(attn, "n_heads_in_group");
			config_describe(g, shown, sizeof(shown));
			double d = cJSON_IsNumber(g) ? g->valuedouble : 0;
			if (!(d >= 1 && d <= m->n_head && d == floor(d)) || m->n_head % (uint32_t)d)
				return model_fail(c->e, -EINVAL,
						  "%s: block_configs[%u].attention.n_heads_in_group: %s does not divide num_attention_heads, %u",
						  c->file, i, g && !cJSON_IsNull(g) ? shown : "none", m->n_head);
			s->layer_kv[i] = m->n_head / (uint32_t)d;
			most_kv = s->layer_kv[i] > most_kv ? s->layer_kv[i] : most_kv;
		}
		if (parts & HY_MLP) {
			const cJSON *mult = cJSON_GetObjectItemCaseSensitive(ffn, "ffn_mult");
			config_describe(mult, shown, sizeof(shown));
			/* As block_config.py and Python compute it: ffn_mult to 6 places, 2 * it * n_embd / 3, truncated. */
			double d = cJSON_IsNumber(mult) ? 2 * (nearbyint(mult->valuedouble * 1e6) / 1e6) * (double)s->h / 3 : 0;
			if (!(d >= 1 && d <= MODEL_MAX_WIDTH))
				return model_fail(c->e, -EINVAL,
						  "%s: block_configs[%u].ffn.ffn_mult: %s is not a width from 1 to %u",
						  c->file, i, mult && !cJSON_IsNull(mult) ? shown : "none", MODEL_MAX_WIDTH);
			s->layer_ff[i] = ((uint64_t)d + 255) / 256 * 256;
			widest = s->layer_ff[i] > widest ? s->layer_ff[i] : widest;
		}
		s->parts[i++] = (unsigned char)parts;
	}
	m->n_head_kv = most_kv;
	s->kv_heads = most_kv;
	s->ff = widest;
	m->n_ff = (uint32_t)widest;
	return 0;
}

/*
 * A µP multiplier (Falcon-H1's): a finite number, or with n > 0 a list of n
 * of them. No parameter, but a config whose multipliers are not numbers is
 * not one transformers loads.
 */
static int config_multiplier(const struct config *c, const char *key, int n)
{
	const char *where = "";
	const cJSON *v = config_lookup(c, key, &where);
	if (!v)
		return 0;
	bool good = n ? cJSON_IsArray(v) && cJSON_GetArraySize(v) == n : cJSON_IsNumber(v) && isfinite(v->valuedouble);
	const cJSON *e;
	if (n && good)
		cJSON_ArrayForEach(e, v)
			good = good && cJSON_IsNumber(e) && isfinite(e->valuedouble);
	if (good)
		return 0;
	char shown[64];
	config_describe(v, shown, sizeof(shown));
	if (n)
		return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a list of %d numbers", c->file, where, key, shown,
				  n);
	return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a number", c->file, where, key, shown);
}

/*
 * Falcon-H1 (FalconH1DecoderLayer): in every layer attention and a Mamba-2
 * mixer read the same input side by side, then a gated MLP; each layer
 * keeps a KV cache and the mixer's state.
 */
static int read_falcon_h1(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t head = 0;
	bool before_gate, rms_norm, attention_bias;
	static const struct { const char *key; int n; } multipliers[] = {
		{ "embedding_multiplier", 0 }, { "lm_head_multiplier", 0 }, { "key_multiplier", 0 },
		{ "attention_in_multiplier", 0 }, { "attention_out_multiplier", 0 }, { "ssm_in_multiplier", 0 },
		{ "ssm_out_multiplier", 0 }, { "mlp_multipliers", 2 }, { "ssm_multipliers", 5 },
	};
	int r;

	if ((r = read_mamba_mixer(c, &falcon_h1_keys, m, s)) < 0 ||
	    (r = config_flag(c, "mamba_rms_norm", false, &rms_norm)) < 0 ||
	    (r = config_flag(c, "mamba_norm_before_gate", true, &before_gate)) < 0 ||
	    (r = config_flag(c, "attention_bias", false, &attention_bias)) < 0 ||
	    (r = config_flag(c, "mlp_bias", false, &s->mlp_bias)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(multipliers) / sizeof(multipliers[0]); i++)
		if ((r = config_multiplier(c, multipliers[i].key, multipliers[i].n)) < 0)
			return r;
	/* mamba_d_head: "auto" (the class's default) is the mixer's width over its heads; another must be it. */
	const char *where = "";
	const cJSON *d_head = config_lookup(c, "mamba_d_head", &where);
	if (!(cJSON_IsString(d_head) && !strcmp(d_head->valuestring, "auto")) &&
	    (r = config_optional(c, KEYS("mamba_d_head"), 1, MODEL_MAX_WIDTH, 0, &head)) < 0)
		return r;
	uint64_t heads = s->ssm_heads, inner = m->ssm_inner;
	if (head && sat_mul(head, heads) != inner)
		return model_fail(c->e, -EINVAL,
				  "%s: %smamba_d_head: %" PRIu64 " x %" PRIu64 " heads is not the mixer's width, "
				  "%" PRIu64,
				  c->file, where, head, heads, inner);
	if ((r = config_read_attention(c, f, m, s)) < 0)
		return r;
	s->qkv_bias = s->o_bias = attention_bias;
	s->ssm_unnormed = !rms_norm;
	memset(s->parts, HY_SSM | HY_ATTN | HY_MLP, m->n_layer);
	m->n_ff = (uint32_t)s->ff;
	s->gated = true;
	return 0;
}

/*
 * What Zamba and Zamba2 share once their layers are known: heads that
 * divide into the KV heads and are at least one element wide, the shared
 * blocks some hybrid layer takes (the model keeps no other: Zamba's one,
 * Zamba2Model's the rest in a plain list), the cache's heads, the gated
 * MLP. 0, or -EINVAL said naming the key.
 */
static int zamba_shape(const struct config *c, struct hmn_model *m, struct shape *s, uint64_t heads, uint64_t kv,
		       uint64_t head_dim, uint64_t ff, uint64_t blocks, uint64_t hybrid)
{
	if (ff > MODEL_MAX_WIDTH)
		return model_fail(c->e, -EINVAL, "%s: 4 x hidden_size (intermediate_size's default) is more than %u", c->file,
				  MODEL_MAX_WIDTH);
	if (!head_dim)
		return model_fail(c->e, -EINVAL, "%s: num_attention_heads: %" PRIu64 " is more than 2 x hidden_size, %" PRIu64,
				  c->file, heads, 2 * s->h);
	if (heads % kv)
		return model_fail(c->e, -EINVAL, "%s: num_key_value_heads: %" PRIu64 " does not divide num_attention_heads, %"
				  PRIu64, c->file, kv, heads);
	s->shared_blocks = blocks < hybrid ? blocks : hybrid;
	m->n_head = (uint32_t)heads;
	m->n_head_kv = (uint32_t)kv;
	s->kv_heads = kv;
	m->key_length = m->value_length = (uint32_t)head_dim;
	s->ff = ff;
	m->n_ff = (uint32_t)ff;
	s->gated = true;
	return 0;
}

/*
 * Zamba2 (modeling_zamba2.py): every layer a Mamba-2 mixer after its norm;
 * a "hybrid" layer of layers_block_type first runs one of num_mem_blocks
 * shared transformer blocks (taken in turn) over the hidden state beside
 * the embeddings (twice the width: attention_head_dim is 2 x width /
 * heads, whatever the config writes), then its own linear layer into the
 * mixer's input, and LoRA adapters of adapter_rank on the MLP (always, in
 * today's modeling_zamba2.py) and, with use_shared_attention_adapter, on
 * Q, K and V. A hybrid layer keeps a KV cache of its own and every layer a
 * state. Zamba2Config derives mamba_headdim, attention_head_dim and
 * hybrid_layer_ids from the keys read here and overwrites what a
 * config.json says of them, so hmn reads none of them either; its
 * intermediate_size is 4 x width where null or absent (ffn_hidden_size,
 * which the configs also write, is no key of the class).
 */
static int read_zamba2(const struct config *c, struct hmn_model *m, struct shape *s)
{
	/* Zamba2Config's layers_block_type where it names none: 54 layers, these hybrid. */
	static const uint32_t default_hybrid[] = { 6, 12, 18, 24, 30, 36, 42, 47, 51 };
	uint64_t heads, kv, ff, blocks;
	bool long_context;
	const char *where = "";
	int r;

	if ((r = read_mamba_mixer(c, &zamba2_keys, m, s)) < 0 ||
	    (r = config_required(c, KEYS("num_attention_heads"), 1, MODEL_MAX_WIDTH, &heads)) < 0 ||
	    (r = config_optional(c, KEYS("num_key_value_heads"), 1, MODEL_MAX_WIDTH, heads, &kv)) < 0 ||
	    (r = config_optional(c, KEYS("intermediate_size"), 1, MODEL_MAX_WIDTH, sat_mul(4, s->h), &ff)) < 0 ||
	    (r = config_required(c, KEYS("num_mem_blocks"), 1, MODEL_MAX_LAYERS, &blocks)) < 0 ||
	    (r = config_flag(c, "use_shared_attention_adapter", false, &s->attention_adapter)) < 0 ||
	    (r = config_required(c, KEYS("adapter_rank"), 1, MODEL_MAX_WIDTH, &s->adapter_rank)) < 0 ||
	    (r = config_flag(c, "use_long_context", false, &long_context)) < 0)
		return r;
	const cJSON *types = config_lookup(c, "layers_block_type", &where);
	if (!types && m->n_layer != 54)
		return model_fail(c->e, -EINVAL, "%s: key layers_block_type is missing for model_type %s (its default is "
				  "for 54 layers, not %u)", c->file, c->model_type, m->n_layer);
	if (types && (!cJSON_IsArray(types) || cJSON_GetArraySize(types) != (int)m->n_layer))
		return model_fail(c->e, -EINVAL, "%s: %slayers_block_type is not a list of %u layer types", c->file, where,
				  m->n_layer);
	uint64_t hybrid = 0;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		bool is_hybrid = false;
		if (types) {
			const cJSON *t = cJSON_GetArrayItem(types, (int)i);
			/*
			 * Zyphra's first Zamba2 configs (Zamba2-1.2B before 2024's
			 * transformers port) write 'm' and 'g' for their own code's
			 * layers: Zamba2Config reads only "mamba" and "hybrid", so
			 * transformers cannot load them either; said, not guessed.
			 */
			if (cJSON_IsString(t) && (!strcmp(t->valuestring, "m") || !strcmp(t->valuestring, "g")))
				return model_fail(c->e, -EINVAL,
						  "%s: %slayers_block_type[%u] is \"%s\": Zyphra's format from "
						  "before transformers ('m'/'g'), which transformers' Zamba2 cannot "
						  "load either; a later revision of the model's config.json reads",
						  c->file, where, i, t->valuestring);
			if (!cJSON_IsString(t) || (strcmp(t->valuestring, "mamba") && strcmp(t->valuestring, "hybrid")))
				return model_fail(c->e, -EINVAL, "%s: %slayers_block_type[%u] is not \"mamba\" or \"hybrid\"",
						  c->file, where, i);
			is_hybrid = !strcmp(t->valuestring, "hybrid");
		} else {
			for (size_t k = 0; k < sizeof(default_hybrid) / sizeof(default_hybrid[0]); k++)
				is_hybrid |= default_hybrid[k] == i;
		}
		s->parts[i] = (unsigned char)(HY_SSM | (is_hybrid ? HY_ATTN : 0));
		hybrid += is_hybrid;
	}
	s->attn_width = 2 * s->h;
	if ((r = zamba_shape(c, m, s, heads, kv, 2 * s->h / heads, ff, blocks, hybrid)) < 0)
		return r;
	s->mlp_bias = s->ssm_bias; /* add_bias_linear: the shared MLP's too */
	/* use_long_context: Zamba2Config's own 16384 tokens, whatever max_position_embeddings says. */
	if (long_context)
		m->context_length = m->context_limit = 16384;
	return 0;
}

/*
 * Zamba (modeling_zamba.py, Zamba-7B-v1): every layer a Mamba mixer of
 * n_mamba_heads heads (each its own x_proj and dt_proj: as many weights as
 * one Mamba mixer's, without Jamba's norms on dt, B and C); layers 2 and
 * 3 + attn_layer_offset, every attn_layer_period-th after, "hybrid"
 * (ZambaConfig's _layers_block_type, whatever the config writes): one
 * shared transformer block (attention over attention_hidden_size, twice
 * the width, in heads of attention_head_dim, 2 x width / heads), then the
 * layer's own linear layer. num_key_value_heads has no default that
 * ZambaAttention can use: required.
 */
static int read_zamba(const struct config *c, struct hmn_model *m, struct shape *s)
{
	uint64_t heads, kv, head_dim, ff, period, offset;
	int r;

	if ((r = read_mamba_mixer(c, &zamba_keys, m, s)) < 0 ||
	    (r = config_required(c, KEYS("num_attention_heads"), 1, MODEL_MAX_WIDTH, &heads)) < 0 ||
	    (r = config_required(c, KEYS("num_key_value_heads"), 1, MODEL_MAX_WIDTH, &kv)) < 0 ||
	    (r = config_optional(c, KEYS("attention_hidden_size"), 1, MODEL_MAX_WIDTH, sat_mul(2, s->h),
				 &s->attn_width)) < 0 ||
	    (r = config_optional(c, KEYS("attention_head_dim"), 1, MODEL_MAX_WIDTH, 2 * s->h / heads, &head_dim)) < 0 ||
	    (r = config_required(c, KEYS("intermediate_size"), 1, MODEL_MAX_WIDTH, &ff)) < 0 ||
	    (r = config_required(c, KEYS("attn_layer_period"), 1, MODEL_MAX_LAYERS, &period)) < 0 ||
	    (r = config_required(c, KEYS("attn_layer_offset"), 0, MODEL_MAX_LAYERS, &offset)) < 0)
		return r;
	if (s->attn_width > MODEL_MAX_WIDTH)
		return model_fail(c->e, -EINVAL, "%s: 2 x hidden_size (attention_hidden_size's default) is more than %u",
				  c->file, MODEL_MAX_WIDTH);
	uint64_t hybrid = 0;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		bool is_hybrid = i < 3 ? i == 2 : (i - 3) % period == offset;
		s->parts[i] = (unsigned char)(HY_MAMBA | (is_hybrid ? HY_ATTN : 0));
		hybrid += is_hybrid;
	}
	s->mamba_unnormed = true;
	return zamba_shape(c, m, s, heads, kv, head_dim, ff, 1, hybrid);
}

int config_read_hybrid(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	bool nemotron = f->hybrid == HYBRID_NEMOTRON_H;
	if (f->hybrid != HYBRID_MAMBA2 && f->hybrid != HYBRID_NEMOTRON_H) {
		s->parts = calloc(m->n_layer ? m->n_layer : 1, 1);
		if (!s->parts)
			return -ENOMEM;
		switch (f->hybrid) {
		case HYBRID_JAMBA:
			return read_jamba(c, f, m, s);
		case HYBRID_LLAMA4:
			return read_llama4(c, f, m, s);
		case HYBRID_GRANITE:
			return read_granite(c, f, m, s);
		case HYBRID_NEMOTRON_NAS:
			return read_nas(c, f, m, s);
		case HYBRID_FALCON_H1:
			return read_falcon_h1(c, f, m, s);
		case HYBRID_ZAMBA2:
			return read_zamba2(c, m, s);
		case HYBRID_ZAMBA:
			return read_zamba(c, m, s);
		default:
			return read_qwen3_next(c, f, m, s);
		}
	}
	int r;

	/* Mamba2Mixer's inner width is expand x width, split into its heads; Nemotron-H's is its heads'. */
	if ((r = read_mamba_mixer(c, nemotron ? &nemotron_h_keys : &mamba2_keys, m, s)) < 0)
		return r;
	s->parts = calloc(m->n_layer ? m->n_layer : 1, 1);
	if (!s->parts)
		return -ENOMEM;
	if (!nemotron) {
		memset(s->parts, HY_SSM, m->n_layer);
		m->n_ff = m->ssm_inner;
		return 0;
	}
	if ((r = read_pattern(c, m, s)) < 0)
		return r;
	/*
	 * vLLM's NemotronHForCausalLMConfig: the SSM state in the config's
	 * mamba_ssm_cache_dtype, float32 where it names none ("only float32 is
	 * known to have no accuracy issues").
	 */
	const char *where = "";
	const cJSON *ssm_dtype = config_lookup(c, "mamba_ssm_cache_dtype", &where);
	if (ssm_dtype && !cJSON_IsString(ssm_dtype))
		return model_fail(c->e, -EINVAL, "%s: %smamba_ssm_cache_dtype is not a type's name", c->file, where);
	m->ssm_state_f32 = !ssm_dtype || !strcmp(ssm_dtype->valuestring, "float32");
	bool attention_bias;
	if ((r = config_read_attention(c, f, m, s)) < 0 ||
	    (r = config_flag(c, "attention_bias", false, &attention_bias)) < 0 ||
	    (r = config_flag(c, "mlp_bias", false, &s->mlp_bias)) < 0)
		return r;
	s->qkv_bias = s->o_bias = attention_bias;
	bool moe = false;
	for (uint32_t i = 0; i < m->n_layer; i++)
		moe |= s->parts[i] == HY_MOE;
	if (moe) {
		uint64_t experts, used;
		if ((r = config_required(c, KEYS("n_routed_experts"), 1, MODEL_MAX_WIDTH, &experts)) < 0 ||
		    (r = config_required(c, KEYS("num_experts_per_tok"), 1, MODEL_MAX_WIDTH, &used)) < 0 ||
		    (r = config_required(c, KEYS("moe_intermediate_size"), 1, MODEL_MAX_WIDTH, &s->ff_moe)) < 0 ||
		    (r = config_optional(c, KEYS("moe_shared_expert_intermediate_size"), 0, MODEL_MAX_WIDTH, 0,
					 &s->ff_shared)) < 0 ||
		    (r = model_check_experts(&c->names, experts, used, c->e)) < 0)
			return r;
		m->n_expert = (uint32_t)experts;
		m->n_expert_used = (uint32_t)used;
		m->n_ff_expert = (uint32_t)s->ff_moe;
		m->n_shared_expert = s->ff_shared ? 1 : 0;
	}
	return 0;
}
