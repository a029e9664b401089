/*
 * A Hugging Face config.json: the architecture's shape, its trained context,
 * sliding windows, experts, latent attention, recurrent state. Without
 * tensors (a config.json alone) the parameters the shape implies stand in
 * for the weights, layer by layer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "model.h"

/* How a family builds its layers, where it differs from Llama's. */
struct family {
	const char *model_type;
	bool plain_mlp;        /* up and down (GELU), not gate, up and down */
	bool linear_bias;      /* every linear layer has a bias */
	bool qkv_bias;         /* Q, K and V have biases */
	bool layer_norm;       /* LayerNorm (weight and bias), not RMSNorm */
	bool qk_norm;          /* a norm on Q and on K (head_dim each) */
	bool sandwich_norm;    /* norms after attention and MLP too (Gemma 2/3) */
	bool tied;             /* the default of tie_word_embeddings */
	bool positions;        /* learned position embeddings (GPT-2) */
	bool recurrent;        /* Mamba */
	uint32_t swa_pattern;  /* every Nth layer full, the others slide */
};

static const struct family families[] = {
	{ .model_type = "llama" }, { .model_type = "mistral" }, { .model_type = "mixtral" },
	{ .model_type = "qwen3", .qk_norm = true }, { .model_type = "qwen3_moe", .qk_norm = true },
	{ .model_type = "qwen2", .qkv_bias = true }, { .model_type = "qwen2_moe", .qkv_bias = true },
	{ .model_type = "gemma", .tied = true },
	{ .model_type = "gemma2", .tied = true, .sandwich_norm = true, .swa_pattern = 2 },
	{ .model_type = "gemma3_text", .tied = true, .sandwich_norm = true, .qk_norm = true,
	  .swa_pattern = 6 },
	{ .model_type = "gemma3", .tied = true, .sandwich_norm = true, .qk_norm = true,
	  .swa_pattern = 6 },
	{ .model_type = "phi3" }, { .model_type = "deepseek_v2" }, { .model_type = "deepseek_v3" },
	{ .model_type = "gpt2", .plain_mlp = true, .linear_bias = true, .layer_norm = true,
	  .tied = true, .positions = true },
	{ .model_type = "gpt_neox", .plain_mlp = true, .linear_bias = true, .layer_norm = true },
	{ .model_type = "mamba", .tied = true, .recurrent = true },
	{ .model_type = "falcon_mamba", .tied = true, .recurrent = true },
};

static const cJSON *field(const cJSON *text, const cJSON *root, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(text, key);
	return v && !cJSON_IsNull(v) ? v : cJSON_GetObjectItemCaseSensitive(root, key);
}

/* The first of keys that is a whole number (in [0, 2^53]); fallback when none is. */
static uint64_t number_of(const cJSON *text, const cJSON *root, const char *const *keys, uint64_t fallback)
{
	for (; *keys; keys++) {
		const cJSON *v = field(text, root, *keys);
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0 &&
		    v->valuedouble == (double)(uint64_t)v->valuedouble)
			return (uint64_t)v->valuedouble;
	}
	return fallback;
}

#define NUM(fallback, ...) number_of(text, root, (const char *const[]){ __VA_ARGS__, NULL }, fallback)

static uint32_t u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static bool flag(const cJSON *text, const cJSON *root, const char *key, bool fallback)
{
	const cJSON *v = field(text, root, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

static enum hmn_dtype torch_dtype(const cJSON *text, const cJSON *root)
{
	const cJSON *v = field(text, root, "torch_dtype");
	if (!cJSON_IsString(v))
		v = field(text, root, "dtype");
	if (!cJSON_IsString(v))
		return HMN_DTYPE_NONE;
	enum hmn_dtype d;
	return hmn_dtype_from_name(v->valuestring, &d) == 0 ? d : HMN_DTYPE_NONE;
}

/* What a config-alone estimate prices the weights' matrices in (a quantised checkpoint). */
static enum hmn_dtype quantized_dtype(const cJSON *root)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quantization_config");
	if (!cJSON_IsObject(q))
		return HMN_DTYPE_NONE;
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(q, "quant_method");
	if (cJSON_IsString(method) && !strcmp(method->valuestring, "fp8"))
		return HMN_DTYPE_F8_E4M3;
	const cJSON *bits = cJSON_GetObjectItemCaseSensitive(q, "bits");
	if (cJSON_IsNumber(bits) && bits->valuedouble == 4)
		return HMN_DTYPE_INT4;
	if (cJSON_IsNumber(bits) && bits->valuedouble == 8)
		return HMN_DTYPE_I8;
	return HMN_DTYPE_NONE;
}

struct shape {
	const struct family *family;
	uint64_t h, ff, vocab, positions;
	uint64_t q_lora, nope, rope, v_head;
	uint64_t ff_moe, ff_shared, first_dense;
	bool tied;
	enum hmn_dtype weights, matrices;
};

/* One synthetic tensor of n parameters (a matrix, or a vector) into b. */
static int implied(struct model_build *b, const char *name, uint64_t n, bool matrix, const struct shape *s)
{
	if (!n)
		return 0;
	if (n == HMN_UNKNOWN)
		return -EOVERFLOW;
	enum hmn_dtype type = matrix && s->matrices != HMN_DTYPE_NONE ? s->matrices : s->weights;
	uint64_t dims[2] = { n, 1 };
	uint64_t bytes = dtype_price(type, n);
	if (bytes == HMN_UNKNOWN)
		return -EOVERFLOW;
	return model_build_tensor(b, name, strlen(name), type, dims, matrix ? 2 : 1, bytes);
}

static uint64_t norm_params(const struct shape *s, uint64_t width)
{
	return s->family && s->family->layer_norm ? sat_mul(2, width) : width;
}

/* Saturating sums and products (HMN_UNKNOWN past 2^64): a hostile shape is too large, never wrapped. */
#define MUL3(a, b, c) sat_mul(sat_mul(a, b), c)

static int implied_layer(struct model_build *b, const struct hmn_model *m, const struct shape *s, uint32_t i)
{
	const struct family *f = s->family;
	char name[64];
	uint64_t h = s->h, hd = m->key_length, nh = m->n_head, nkv = m->n_head_kv;
	uint64_t matrix = 0, vector = 0;
	int r;

	if (f && f->recurrent) {
		uint64_t di = m->ssm_inner, ds = m->ssm_state, dc = m->ssm_conv;
		uint64_t rank = s->rope; /* time_step_rank, kept in rope for Mamba */
		matrix = sat_add(sat_add(MUL3(h, 2, di), sat_mul(di, dc)),
				 sat_add(sat_mul(di, sat_add(rank, sat_mul(2, ds))),
					 sat_add(sat_add(sat_mul(rank, di), sat_mul(di, ds)), sat_mul(di, h))));
		vector = sat_add(sat_mul(3, di), h);
	} else {
		if (m->kv_lora_rank) {
			uint64_t qk = sat_add(s->nope, s->rope);
			matrix = sat_add(matrix, s->q_lora ? sat_add(sat_mul(h, s->q_lora), MUL3(s->q_lora, nh, qk))
							   : MUL3(h, nh, qk));
			vector = sat_add(vector, sat_add(s->q_lora, m->kv_lora_rank));
			matrix = sat_add(matrix, sat_add(sat_mul(h, sat_add(m->kv_lora_rank, s->rope)),
							 MUL3(m->kv_lora_rank, nh, sat_add(s->nope, s->v_head))));
			matrix = sat_add(matrix, MUL3(nh, s->v_head, h));
		} else {
			matrix = sat_add(sat_add(MUL3(h, nh, hd), sat_mul(2, MUL3(h, nkv, hd))), MUL3(nh, hd, h));
			if (f && (f->linear_bias || f->qkv_bias))
				vector = sat_add(vector, sat_add(sat_mul(nh, hd), sat_mul(2, sat_mul(nkv, hd))));
			if (f && f->linear_bias)
				vector = sat_add(vector, h);
			if (f && f->qk_norm)
				vector = sat_add(vector, sat_mul(2, hd));
		}
		vector = sat_add(vector, sat_mul(norm_params(s, h), f && f->sandwich_norm ? 4 : 2));
		bool moe = m->n_expert && i >= s->first_dense;
		uint64_t ff = moe ? s->ff_moe : s->ff;
		uint64_t per = MUL3(f && f->plain_mlp ? 2 : 3, h, ff);
		if (f && f->plain_mlp && f->linear_bias)
			vector = sat_add(vector, sat_add(ff, h));
		if (moe) {
			matrix = sat_add(matrix, sat_add(sat_mul(m->n_expert, per), sat_mul(h, m->n_expert)));
			matrix = sat_add(matrix, MUL3(3, h, s->ff_shared));
		} else {
			matrix = sat_add(matrix, per);
		}
	}
	snprintf(name, sizeof(name), "blk.%u.weight", i);
	if ((r = implied(b, name, matrix, true, s)) < 0)
		return r;
	snprintf(name, sizeof(name), "blk.%u.norm", i);
	return implied(b, name, vector, false, s);
}

/* The tensors the shape implies, for a config.json without weights. */
static int implied_tensors(struct model_build *b, const struct hmn_model *m, const struct shape *s)
{
	int r;
	if ((r = implied(b, "token_embd.weight", sat_mul(s->vocab, s->h), true, s)) < 0 ||
	    (r = implied(b, "token_embd.positions", sat_mul(s->positions, s->h), true, s)) < 0)
		return r;
	for (uint32_t i = 0; i < m->n_layer; i++)
		if ((r = implied_layer(b, m, s, i)) < 0)
			return r;
	if ((r = implied(b, "output_norm.weight", norm_params(s, s->h), false, s)) < 0)
		return r;
	if (!s->tied && (r = implied(b, "output.weight", sat_mul(s->vocab, s->h), true, s)) < 0)
		return r;
	return 0;
}

/* Which layers slide: layer_types, else the family's pattern or the window on every layer. */
static void sliding_layers(const cJSON *text, const cJSON *root, struct hmn_model *m,
			   const struct family *f, bool **ret_swa, size_t *ret_n, uint32_t *ret_pattern)
{
	const cJSON *window = field(text, root, "sliding_window");
	uint64_t w = cJSON_IsNumber(window) && window->valuedouble > 0 &&
			     window->valuedouble < 4294967296.0 ? (uint64_t)window->valuedouble : 0;
	/* Qwen2 names a window it does not use unless use_sliding_window says so. */
	if (!flag(text, root, "use_sliding_window", true))
		w = 0;
	m->sliding_window = (uint32_t)w;
	*ret_pattern = u32(NUM(f ? f->swa_pattern : 0, "sliding_window_pattern"));
	const cJSON *types = field(text, root, "layer_types");
	*ret_swa = NULL;
	*ret_n = 0;
	if (w && cJSON_IsArray(types) && m->n_layer) {
		bool *swa = calloc(m->n_layer, sizeof(*swa));
		if (!swa)
			return;
		size_t i = 0;
		const cJSON *t;
		cJSON_ArrayForEach(t, types) {
			if (i >= m->n_layer)
				break;
			swa[i++] = cJSON_IsString(t) && strstr(t->valuestring, "sliding");
		}
		*ret_swa = swa;
		*ret_n = i;
	}
}

int config_read(const char *text_json, size_t len, struct model_build *b, bool implies_tensors,
		struct model_error *e)
{
	struct hmn_model *m = b->m;
	const char *file = m->path ? m->path : "config.json";
	cJSON *root = cJSON_ParseWithLength(text_json, len);
	int r = 0;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s: not a model's config.json (not a JSON object)", file);
	}
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
	if (!cJSON_IsObject(text))
		text = root;
	const cJSON *type = field(text, root, "model_type");
	const cJSON *archs = cJSON_GetObjectItemCaseSensitive(root, "architectures");
	const char *arch = cJSON_IsString(type) ? type->valuestring : NULL;
	if (!arch && cJSON_IsArray(archs) && cJSON_IsString(cJSON_GetArrayItem(archs, 0)))
		arch = cJSON_GetArrayItem(archs, 0)->valuestring;
	if (!arch) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s: no model_type: not a model's config.json", file);
	}
	char name[64];
	printable_name(arch, name, sizeof(name));
	m->architecture = arena_strdup(m->arena, name);
	const struct family *f = NULL;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(families[i].model_type, arch))
			f = &families[i];

	struct shape s = { .family = f };
	s.h = NUM(0, "hidden_size", "n_embd", "d_model");
	uint64_t layers = NUM(0, "num_hidden_layers", "n_layer", "num_layers");
	if (layers > MODEL_MAX_LAYERS) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s: num_hidden_layers is %" PRIu64 ", more than %u", file,
				  layers, MODEL_MAX_LAYERS);
	}
	m->n_layer = (uint32_t)layers;
	m->n_embd = u32(s.h);
	m->n_head = u32(NUM(0, "num_attention_heads", "n_head"));
	m->n_head_kv = u32(NUM(m->n_head, "num_key_value_heads", "num_kv_heads"));
	uint64_t head_dim = m->n_head ? s.h / m->n_head : 0;
	m->key_length = m->value_length = u32(NUM(head_dim, "head_dim"));
	s.ff = NUM(f && f->plain_mlp ? sat_mul(4, s.h) : 0, "intermediate_size", "n_inner", "ffn_dim");
	m->n_ff = u32(s.ff);
	m->n_vocab = u32(NUM(0, "vocab_size"));
	s.vocab = m->n_vocab;
	m->context_length = NUM(0, "max_position_embeddings", "n_positions", "max_seq_len", "seq_length");
	s.positions = f && f->positions ? m->context_length : 0;
	s.tied = flag(text, root, "tie_word_embeddings", f ? f->tied : false);
	m->n_expert = u32(NUM(0, "num_local_experts", "n_routed_experts", "num_experts"));
	m->n_expert_used = u32(NUM(0, "num_experts_per_tok", "num_experts_per_token"));
	s.ff_moe = NUM(s.ff, "moe_intermediate_size");
	m->n_ff_expert = m->n_expert ? u32(s.ff_moe) : 0;
	m->n_shared_expert = u32(NUM(0, "n_shared_experts"));
	s.ff_shared = NUM(sat_mul(m->n_shared_expert, s.ff_moe), "shared_expert_intermediate_size");
	s.first_dense = NUM(0, "first_k_dense_replace");
	m->kv_lora_rank = u32(NUM(0, "kv_lora_rank"));
	if (m->kv_lora_rank) {
		s.q_lora = NUM(0, "q_lora_rank");
		s.nope = NUM(0, "qk_nope_head_dim");
		s.rope = NUM(0, "qk_rope_head_dim");
		s.v_head = NUM(0, "v_head_dim");
		m->rope_dim = u32(s.rope);
		m->key_length = u32(sat_add(s.nope, s.rope));
		m->value_length = u32(s.v_head);
	}
	if (f && f->recurrent) {
		m->ssm_state = u32(NUM(16, "state_size"));
		m->ssm_conv = u32(NUM(4, "conv_kernel"));
		m->ssm_inner = u32(NUM(sat_mul(2, s.h), "intermediate_size"));
		m->ssm_group = u32(NUM(0, "n_groups"));
		s.rope = NUM((s.h + 15) / 16, "time_step_rank");
		m->n_head = m->n_head_kv = 0;
		m->key_length = m->value_length = 0;
	}
	enum hmn_dtype dt = torch_dtype(text, root);
	s.weights = dt != HMN_DTYPE_NONE ? dt : HMN_DTYPE_F32;
	s.matrices = quantized_dtype(root);
	if (dt != HMN_DTYPE_NONE)
		m->float_dtype = dt;

	bool *swa = NULL;
	size_t n_swa = 0;
	uint32_t pattern = 0;
	sliding_layers(text, root, m, f, &swa, &n_swa, &pattern);
	if (implies_tensors)
		r = implied_tensors(b, m, &s);
	cJSON_Delete(root);
	if (r < 0) {
		free(swa);
		return model_fail(e, r, "%s: the shape it gives is too large", file);
	}
	if ((r = model_build_finish(b, e)) < 0) {
		free(swa);
		return r;
	}
	if (implies_tensors)
		m->tied_embeddings = s.tied;
	const struct arch_info *info = arch_find(m->architecture);
	struct arch_info local = { .name = m->architecture, .recurrent = f && f->recurrent };
	model_set_layer_kinds(m, info ? info : &local, pattern, swa, n_swa);
	free(swa);
	if (!f) {
		char w[160];
		snprintf(w, sizeof(w), "unknown architecture '%s': read as a generic transformer", name);
		m->warning = arena_strdup(m->arena, w);
	}
	return 0;
}
