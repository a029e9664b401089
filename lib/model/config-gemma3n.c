/*
 * Gemma 3n's text model from config.json (transformers' configuration_gemma3n.py,
 * Gemma3nTextConfig, and modeling_gemma3n.py): a gemma3n config's text_config.
 *
 * Each of its layers (Gemma3nTextDecoderLayer) is Gemma 3's, attention with
 * Q and K normed per head (its V norm has no weight) and a gated MLP, four
 * norms, beside three things of its own, which config.c's hybrid_layer()
 * prices where the shape has them:
 *   - AltUp (altup_num_inputs, A): modality_router of width x A,
 *     prediction_coefs of A x A², correction_coefs of A x A, a router norm
 *     and correct_output_scale of the width;
 *   - LAuReL (laurel_rank, r): linear_left of width x r, linear_right of
 *     r x width, a norm;
 *   - its per-layer input (hidden_size_per_layer_input, p): a gate of width
 *     x p, a projection of p x width, a norm.
 * intermediate_size is one width, or a list of one a layer (the E4B's
 * MatFormer slices may differ). Activation sparsity keeps no parameters.
 * The text model's own (config.c's implied_tensors()): the embeddings, the
 * per-layer embeddings of vocab_size_per_layer_input x layers x p (2.0B of
 * the E2B's parameters), per_layer_model_projection of width x layers x p
 * and its norm, and 2 x (A - 1) AltUp projections of width x width.
 *
 * The per-layer embeddings are priced on the GPU: vLLM keeps them there (a
 * VocabParallelEmbedding in gemma3n.py's Gemma3nTextModel); llama.cpp keeps
 * them in host memory (llama-arch.cpp: per_layer_token_embd is an input
 * layer's tensor, as token_embd is), which a note says with their size.
 *
 * The last num_kv_shared_layers layers reuse the K and V of the last earlier
 * layer of their kind (Gemma3nTextAttention's kv_shared_layer_index): their
 * k_proj and v_proj are in the checkpoint all the same, but they keep no
 * cache of their own (vLLM and llama.cpp alike).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/config-gemma3n.h"
#include "model/config-hybrid.h"

/* Layer i slides: layer_types' word for it, else Gemma3nTextConfig's default (every fifth layer full). */
static bool layer_slides(const cJSON *types, uint32_t i)
{
	const cJSON *w = cJSON_GetArrayItem(types, (int)i);
	if (cJSON_IsString(w))
		return strstr(w->valuestring, "sliding") != NULL;
	return (i + 1) % 5 != 0;
}

/*
 * A shared layer reads the cache of the last layer of its own kind
 * (sliding or full) before the shared ones; transformers' Gemma3n
 * attention refuses a config where there is none. Left unchecked, such a
 * layer was priced without any cache. A layer_types that is not a list of
 * n_layer words is refused later (read_sliding), naming it.
 */
static int check_shared_kinds(const struct config *c, const struct hmn_model *m, uint64_t shared)
{
	const cJSON *types = config_lookup(c, "layer_types", NULL);
	if (types && !(cJSON_IsArray(types) && (uint64_t)cJSON_GetArraySize(types) == m->n_layer))
		return 0;
	uint32_t first_shared = m->n_layer - (uint32_t)shared;
	bool own[2] = { false, false };
	for (uint32_t i = 0; i < first_shared; i++)
		own[layer_slides(types, i)] = true;
	for (uint32_t i = first_shared; i < m->n_layer; i++) {
		bool slides = layer_slides(types, i);
		if (!own[slides]) {
			const char *where = "";
			config_lookup(c, "num_kv_shared_layers", &where);
			return model_fail(c->e, -EINVAL, "%s: %snum_kv_shared_layers: %" PRIu64 " shares layer %u's"
					  " cache, but no layer before the shared ones is %s", c->file, where, shared, i,
					  slides ? "sliding" : "full attention");
		}
	}
	return 0;
}

/*
 * intermediate_size: one width for every layer, or a list of one a layer
 * (transformers refuses a list of another length). Each is a whole number
 * within bounds, said naming the entry: a wrong one was a layer of no MLP.
 */
static int read_widths(const struct config *c, struct hmn_model *m, struct shape *s)
{
	const char *where = "";
	const cJSON *v = config_lookup(c, "intermediate_size", &where);
	uint64_t widest = 0, ff;
	int r;

	s->layer_ff = calloc(m->n_layer ? m->n_layer : 1, sizeof(*s->layer_ff));
	if (!s->layer_ff)
		return -ENOMEM;
	if (!cJSON_IsArray(v)) {
		if ((r = config_required(c, KEYS("intermediate_size"), 1, MODEL_MAX_WIDTH, &ff)) < 0)
			return r;
		for (uint32_t i = 0; i < m->n_layer; i++)
			s->layer_ff[i] = ff;
		widest = ff;
	} else {
		int n = cJSON_GetArraySize(v);
		if (n < 0 || (unsigned)n != m->n_layer)
			return model_fail(c->e, -EINVAL, "%s: %sintermediate_size has %d %s for %u layer%s", c->file,
					  where, n, n == 1 ? "entry" : "entries", m->n_layer, m->n_layer == 1 ? "" : "s");
		size_t i = 0;
		const cJSON *w;
		cJSON_ArrayForEach(w, v) {
			double d = cJSON_IsNumber(w) ? w->valuedouble : NAN;
			if (!(d >= 1) || d != floor(d) || d > MODEL_MAX_WIDTH) {
				char shown[64];
				if (cJSON_IsNull(w))
					snprintf(shown, sizeof(shown), "null");
				else
					config_describe(w, shown, sizeof(shown));
				return model_fail(c->e, -EINVAL, "%s: %sintermediate_size[%zu]: %s is not a whole number"
						  " of 1 to %u", c->file, where, i, shown, MODEL_MAX_WIDTH);
			}
			s->layer_ff[i++] = (uint64_t)d;
			widest = (uint64_t)d > widest ? (uint64_t)d : widest;
		}
	}
	s->ff = widest;
	m->n_ff = (uint32_t)widest;
	return 0;
}

int config_read_gemma3n(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s)
{
	uint64_t heads, kv, head_dim;
	int r;

	(void)f;
	if ((r = config_required(c, HEAD_KEYS, 1, MODEL_MAX_WIDTH, &heads)) < 0 ||
	    (r = config_optional(c, KEYS("num_key_value_heads"), 1, MODEL_MAX_WIDTH, heads, &kv)) < 0 ||
	    (r = model_check_kv_heads(&c->names, heads, kv, -1, c->e)) < 0 ||
	    (r = config_required(c, KEYS("head_dim"), 1, MODEL_MAX_WIDTH, &head_dim)) < 0 ||
	    (r = read_widths(c, m, s)) < 0 ||
	    (r = config_required(c, KEYS("hidden_size_per_layer_input"), 1, MODEL_MAX_WIDTH, &s->per_layer)) < 0 ||
	    (r = config_required(c, KEYS("vocab_size_per_layer_input"), 1, MODEL_MAX_WIDTH, &s->per_layer_vocab)) < 0 ||
	    /* Gemma 3n's 4; prediction_coefs grows as its cube, and no model has more than a few. */
	    (r = config_required(c, KEYS("altup_num_inputs"), 1, 64, &s->altup)) < 0 ||
	    (r = config_required(c, KEYS("laurel_rank"), 1, MODEL_MAX_WIDTH, &s->laurel)) < 0 ||
	    (r = config_required(c, KEYS("num_kv_shared_layers"), 0, MODEL_MAX_LAYERS, &s->kv_shared)) < 0)
		return r;
	/* Every shared layer reads an earlier layer's cache: one at least must keep its own. */
	if (s->kv_shared >= m->n_layer) {
		const char *where = "";
		config_lookup(c, "num_kv_shared_layers", &where);
		return model_fail(c->e, -EINVAL, "%s: %snum_kv_shared_layers: %" PRIu64 " leaves none of its %u"
				  " layer%s a cache of its own", c->file, where, s->kv_shared, m->n_layer,
				  m->n_layer == 1 ? "" : "s");
	}
	if ((r = check_shared_kinds(c, m, s->kv_shared)) < 0)
		return r;
	char note[200];
	uint64_t ple = MUL3(s->per_layer_vocab, m->n_layer, s->per_layer);
	snprintf(note, sizeof(note), "its per-layer embeddings (%.2fB parameters) are priced on the GPU, as vLLM keeps"
		 " them; llama.cpp keeps them in host memory", (double)ple / 1e9);
	model_add_note(m, note);
	s->parts = calloc(m->n_layer ? m->n_layer : 1, 1);
	if (!s->parts)
		return -ENOMEM;
	memset(s->parts, HY_ATTN | HY_MLP, m->n_layer);
	s->gated = true;
	s->qk_norm = true;
	s->kv_heads = kv;
	m->n_head = (uint32_t)heads;
	m->n_head_kv = (uint32_t)kv;
	m->key_length = m->value_length = (uint32_t)head_dim;
	return 0;
}
