/*
 * A Hugging Face config.json: the architecture's shape, its trained context,
 * sliding windows, experts, latent attention, recurrent state. Without
 * tensors (a config.json alone) the parameters the shape implies stand in
 * for the weights, layer by layer.
 *
 * Every number taken from it is checked first: a key the shape needs that
 * is missing, a value that is not a whole number within bounds, or a shape
 * that does not hold together (heads that do not divide the width) makes it
 * malformed, said naming the key. Read as 0 or wrapped, such a number gave
 * a model of 0 parameters or no KV cache, and a confident "fits".
 *
 * A key left out is not always missing: transformers builds the model from
 * its config class, whose defaults stand for what config.json does not say
 * (Gemma 3 4B's text_config names neither its heads nor its vocabulary).
 * For the families hmn knows, those defaults are model/arch.c's table's;
 * for any other model_type, a key the shape needs and does not have is
 * malformed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/model.h"
#include "model/config-keys.h"
#include "model/config-layers.h"
#include "model/config-tensors.h"
#include "model/config-encoder-decoder.h"
#include "model/config-gemma3n.h"
#include "model/config-hybrid.h"
#include "model/quant.h"

/* torch_dtype (else dtype, newer transformers' name): a type's name; one hmn does not know is none. */
static int torch_dtype(const struct config *c, enum hmn_dtype *ret)
{
	static const char *const keys[] = { "torch_dtype", "dtype" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *where = "";
		const cJSON *v = config_lookup(c, keys[i], &where);
		if (!v)
			continue;
		if (!cJSON_IsString(v)) {
			char shown[64];
			config_describe(v, shown, sizeof(shown));
			return model_fail(c->e, -EINVAL, "%s: %s%s: %s is not a type's name", c->file, where, keys[i],
					  shown);
		}
		enum hmn_dtype d;
		*ret = hmn_dtype_from_name(v->valuestring, &d) == 0 ? d : HMN_DTYPE_NONE;
		return 0;
	}
	*ret = HMN_DTYPE_NONE;
	return 0;
}

/* count matrices of in x out, of class part, layer i's module, as its tensor called role (blk.I.ROLE.weight). */
static int implied_in(struct model_build *b, uint32_t i, const char *role, const char *module, const struct shape *s,
		      enum quant_part part, uint64_t in, uint64_t out, uint64_t count)
{
	struct priced p = { 0 };
	char name[64];
	config_priced_module(&p, s, part, i, module, in, out, count);
	snprintf(name, sizeof(name), "blk.%u.%s.weight", i, role);
	return config_implied(b, name, &p, in, s);
}

static uint64_t norm_params(const struct shape *s, uint64_t width)
{
	if (s->family && s->family->bare_norm)
		return 0;
	return s->family && s->family->layer_norm ? sat_mul(2, width) : width;
}

/* The Q and K norms: over all their heads' width at once, else one of head_dim each. */
static uint64_t qk_norm_params(const struct shape *s, uint64_t nh, uint64_t nkv, uint64_t hd)
{
	if (s->family && s->family->qk_norm_full)
		return sat_mul(sat_add(nh, nkv), hd);
	return sat_mul(2, norm_params(s, hd));
}

/*
 * A hybrid's layer (transformers' Mamba2Mixer, NemotronHBlock): one norm
 * before each mixer; a Mamba-2 mixer's in_proj (x and z of its inner
 * width, B and C of n_groups x state each, dt of one per head), its
 * convolution over x, B and C, dt_bias, A_log and D per head, a gated norm
 * of the inner width and out_proj; attention's Q, K, V and O; an MLP's up
 * and down (relu², no gate); a mixture's experts of those, its router
 * with its e_score_correction_bias and its shared expert.
 */
static int hybrid_layer(struct model_build *b, const struct hmn_model *m, const struct shape *s, uint32_t i,
			struct priced *ret_mat, uint64_t *vector)
{
	struct priced mat = { 0 };
	unsigned parts = s->parts[i];
	uint64_t h = s->h, v = 0;
	int r;
	if (parts & HY_SSM) {
		uint64_t di = m->ssm_inner, nh = s->ssm_heads;
		uint64_t conv = sat_add(di, sat_mul(2, sat_mul(m->ssm_group, m->ssm_state)));
		config_priced_add(&mat, s, QUANT_MLP, h, sat_add(sat_add(di, conv), nh), 1);
		config_priced_add(&mat, s, QUANT_PARTS, conv, m->ssm_conv, 1);
		config_priced_add(&mat, s, QUANT_MLP, di, h, 1);
		/* dt_bias, A_log and D a head; the gated norm; the layer's norm, attention's where it has one. */
		v = sat_add(v, sat_mul(3, nh));
		if (!s->ssm_unnormed)
			v = sat_add(v, di);
		if (!(parts & HY_ATTN))
			v = sat_add(v, h);
		if (s->conv_bias)
			v = sat_add(v, conv);
		if (s->ssm_bias)
			v = sat_add(v, sat_add(sat_add(di, conv), nh));
		if (s->ssm_out_bias)
			v = sat_add(v, h);
	}
	if (parts & HY_MAMBA) {
		/*
		 * JambaMambaMixer (Mamba's, and RMS norms on dt, B and C): in_proj
		 * to x and z, the convolution, x_proj to dt, B and C, dt_proj with
		 * its bias, A_log, D, out_proj.
		 */
		uint64_t di = m->ssm_inner, ds = m->ssm_state, rank = s->rope;
		config_priced_add(&mat, s, QUANT_MLP, h, sat_mul(2, di), 1);
		config_priced_add(&mat, s, QUANT_PARTS, di, m->ssm_conv, 1);
		config_priced_add(&mat, s, QUANT_MLP, di, sat_add(rank, sat_mul(2, ds)), 1);
		config_priced_add(&mat, s, QUANT_MLP, rank, di, 1);
		config_priced_add(&mat, s, QUANT_PARTS, di, ds, 1);
		config_priced_add(&mat, s, QUANT_MLP, di, h, 1);
		v = sat_add(v, sat_add(sat_mul(2, di), h));
		if (!s->mamba_unnormed)
			v = sat_add(v, sat_add(rank, sat_mul(2, ds)));
		if (s->conv_bias)
			v = sat_add(v, di);
		if (s->ssm_bias)
			v = sat_add(v, sat_add(sat_mul(2, di), h));
	}
	if (parts & HY_GDN) {
		/*
		 * Qwen3NextGatedDeltaNet: in_proj_qkvz (Q and K of the key heads, V
		 * and Z of the value heads), in_proj_ba (two a value head), a
		 * convolution without bias over Q, K and V, dt_bias and A_log a value
		 * head, a gated norm of a value head's width, out_proj.
		 */
		uint64_t key = sat_mul(s->gdn_k_heads, s->gdn_k_dim), value = sat_mul(s->gdn_v_heads, s->gdn_v_dim);
		uint64_t conv = sat_add(sat_mul(2, key), value);
		config_priced_module(&mat, s, QUANT_ATTENTION, i, "linear_attn.in_proj_qkvz", h,
			      sat_add(sat_mul(2, key), sat_mul(2, value)), 1);
		config_priced_module(&mat, s, QUANT_ATTENTION, i, "linear_attn.in_proj_ba", h, sat_mul(2, s->gdn_v_heads), 1);
		config_priced_add(&mat, s, QUANT_PARTS, conv, s->gdn_conv, 1);
		config_priced_module(&mat, s, QUANT_ATTENTION, i, "linear_attn.out_proj", value, h, 1);
		v = sat_add(v, sat_add(sat_add(sat_mul(2, s->gdn_v_heads), s->gdn_v_dim), h));
	}
	if (parts & HY_ATTN && s->shared_blocks) {
		/*
		 * ZambaHybridLayer, Zamba2HybridLayer: the shared block is priced once
		 * (implied_shared); the layer's own are its linear layer, Zamba2's
		 * adapters (the MLP's gate_up, width to rank to 2 x ff; Q's, K's and
		 * V's, the attention's width to rank and back) and a Mamba-2 layer's
		 * norm (a Mamba one's is HY_MAMBA's).
		 */
		uint64_t rank = s->adapter_rank, wa = s->attn_width;
		config_priced_module(&mat, s, QUANT_MLP, i, "linear", h, h, 1);
		config_priced_add(&mat, s, QUANT_MLP, h, rank, 1);
		config_priced_add(&mat, s, QUANT_MLP, rank, sat_mul(2, s->ff), 1);
		if (s->attention_adapter) {
			config_priced_add(&mat, s, QUANT_ATTENTION, wa, rank, 3);
			config_priced_add(&mat, s, QUANT_ATTENTION, rank, wa, 3);
		}
		if (parts & HY_SSM)
			v = sat_add(v, h);
	} else if (parts & HY_ATTN) {
		uint64_t hd = m->key_length, nh = m->n_head, nkv = s->layer_kv ? s->layer_kv[i] : s->kv_heads;
		/* The roles llama.cpp's quantizer singles out, each a tensor of its own (as implied_layer's). */
		if ((r = implied_in(b, i, "attn_q", "self_attn.q_proj", s, QUANT_ATTENTION, h, sat_mul(nh, hd),
				    s->q_gate ? 2 : 1)) < 0 ||
		    (r = implied_in(b, i, "attn_k", "self_attn.k_proj", s, QUANT_ATTENTION, h, sat_mul(nkv, hd), 1)) < 0 ||
		    (r = implied_in(b, i, "attn_v", "self_attn.v_proj", s, QUANT_ATTENTION, h, sat_mul(nkv, hd), 1)) < 0 ||
		    (r = implied_in(b, i, "attn_output", "self_attn.o_proj", s, QUANT_ATTENTION, sat_mul(nh, hd), h, 1)) < 0)
			return r;
		if (s->qkv_bias)
			v = sat_add(v, sat_add(sat_mul(nh, hd), sat_mul(2, sat_mul(nkv, hd))));
		if (s->o_bias)
			v = sat_add(v, h);
		if (s->qk_norm)
			v = sat_add(v, sat_mul(2, hd));
		v = sat_add(v, h);
	}
	/* DeciLMLinearAttention and DeciLMLinearMLP: one matrix without a bias, after their norm. */
	if (parts & HY_LINEAR) {
		if ((r = implied_in(b, i, "attn_linear", "self_attn.linear_attn", s, QUANT_ATTENTION, h, h, 1)) < 0)
			return r;
		v = sat_add(v, h);
	}
	if (parts & HY_LINEAR_MLP) {
		if ((r = implied_in(b, i, "ffn_linear", "mlp.linear_mlp", s, QUANT_MLP, h, h, 1)) < 0)
			return r;
		v = sat_add(v, h);
	}
	/* Up (and the gate, where the MLP is gated) from the width, down back to it. */
	if (parts & HY_MLP) {
		uint64_t ff = s->layer_ff ? s->layer_ff[i] : s->ff;
		if ((s->gated && (r = implied_in(b, i, "ffn_gate", "mlp.gate_proj", s, QUANT_MLP, h, ff, 1)) < 0) ||
		    (r = implied_in(b, i, "ffn_up", "mlp.up_proj", s, QUANT_MLP, h, ff, 1)) < 0 ||
		    (r = implied_in(b, i, "ffn_down", "mlp.down_proj", s, QUANT_MLP, ff, h, 1)) < 0)
			return r;
		if (s->mlp_bias)
			v = sat_add(v, sat_add(s->gated ? sat_mul(2, ff) : ff, h));
		v = sat_add(v, h);
	}
	if (parts & HY_MOE) {
		uint64_t e = m->n_expert;
		if ((s->gated && (r = implied_in(b, i, "ffn_gate_exps", "mlp.experts.0.gate_proj", s, QUANT_EXPERTS, h,
						 s->ff_moe, e)) < 0) ||
		    (r = implied_in(b, i, "ffn_up_exps", "mlp.experts.0.up_proj", s, QUANT_EXPERTS, h, s->ff_moe, e)) < 0 ||
		    (r = implied_in(b, i, "ffn_down_exps", "mlp.experts.0.down_proj", s, QUANT_EXPERTS, s->ff_moe, h, e)) < 0 ||
		    (r = implied_in(b, i, "ffn_gate_inp", "mlp.gate", s, QUANT_ROUTER, h, e, 1)) < 0 ||
		    (s->gated && (r = implied_in(b, i, "ffn_gate_shexp", "mlp.shared_expert.gate_proj", s, QUANT_MLP, h,
						 s->ff_shared, 1)) < 0) ||
		    (r = implied_in(b, i, "ffn_up_shexp", "mlp.shared_expert.up_proj", s, QUANT_MLP, h, s->ff_shared, 1)) < 0 ||
		    (r = implied_in(b, i, "ffn_down_shexp", "mlp.shared_expert.down_proj", s, QUANT_MLP, s->ff_shared,
				    h, 1)) < 0)
			return r;
		/* Qwen3-Next's shared_expert_gate: one output from the width. */
		if (s->shared_gate && s->ff_shared)
			config_priced_module(&mat, s, QUANT_ROUTER, i, "mlp.shared_expert_gate", h, 1, 1);
		/* Nemotron-H's router has an e_score_correction_bias; Qwen3-Next's none. */
		v = sat_add(v, sat_add(s->gated ? 0 : m->n_expert, h));
		if (s->mlp_bias)
			v = sat_add(v, sat_add(sat_mul(m->n_expert, sat_add(s->ff_moe, h)), sat_add(s->ff_shared, h)));
	}
	/*
	 * Gemma 3n's (Gemma3nTextDecoderLayer, config-gemma3n.c): norms after
	 * attention and MLP; AltUp's router, prediction and correction
	 * coefficients, its router norm and output scale; LAuReL's two matrices
	 * and norm; the per-layer input's gate, projection and norm.
	 */
	if (s->altup) {
		uint64_t a = s->altup;
		config_priced_module(&mat, s, QUANT_MLP, i, "altup.modality_router", h, a, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "altup.prediction_coefs", a, sat_mul(a, a), 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "altup.correction_coefs", a, a, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "laurel.linear_left", h, s->laurel, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "laurel.linear_right", s->laurel, h, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "per_layer_input_gate", h, s->per_layer, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "per_layer_projection", s->per_layer, h, 1);
		v = sat_add(v, sat_mul(6, h));
	}
	*vector = v;
	*ret_mat = mat;
	return 0;
}

static int implied_layer(struct model_build *b, const struct hmn_model *m, const struct shape *s, uint32_t i)
{
	const struct arch_info *f = s->family;
	char name[64];
	uint64_t h = s->h, hd = m->key_length, nh = m->n_head, nkv = s->kv_heads;
	struct priced mat = { 0 };
	uint64_t vector = 0;
	int r;

	if (s->parts) {
		if ((r = hybrid_layer(b, m, s, i, &mat, &vector)) < 0)
			return r;
	} else if (f && f->recurrent) {
		uint64_t di = m->ssm_inner, ds = m->ssm_state, dc = m->ssm_conv;
		uint64_t rank = s->rope; /* time_step_rank, kept in rope for Mamba */
		/* in_proj, x_proj, dt_proj, out_proj are linear layers; the convolution and A are not */
		config_priced_module(&mat, s, QUANT_MLP, i, "mixer.in_proj", h, sat_mul(2, di), 1);
		config_priced_add(&mat, s, QUANT_PARTS, di, dc, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "mixer.x_proj", di, sat_add(rank, sat_mul(2, ds)), 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "mixer.dt_proj", rank, di, 1);
		config_priced_add(&mat, s, QUANT_PARTS, di, ds, 1);
		config_priced_module(&mat, s, QUANT_MLP, i, "mixer.out_proj", di, h, 1);
		vector = sat_add(sat_mul(3, di), h);
	} else {
		/*
		 * The roles llama.cpp's quantizer singles out each a tensor of its
		 * own (attn_v, attn_k, attn_output, ffn_down ...), the rest in
		 * blk.N.weight: a config prices a file type as its weights do.
		 */
		if (m->kv_lora_rank) {
			uint64_t qk = sat_add(s->nope, s->rope);
			if (s->q_lora) {
				config_priced_module(&mat, s, QUANT_ATTENTION, i, "self_attn.q_a_proj", h, s->q_lora, 1);
				config_priced_module(&mat, s, QUANT_ATTENTION, i, "self_attn.q_b_proj", s->q_lora, sat_mul(nh, qk), 1);
			} else {
				config_priced_module(&mat, s, QUANT_ATTENTION, i, "self_attn.q_proj", h, sat_mul(nh, qk), 1);
			}
			vector = sat_add(vector, sat_add(s->q_lora, m->kv_lora_rank));
			config_priced_module(&mat, s, QUANT_ATTENTION, i, "self_attn.kv_a_proj_with_mqa", h,
				      sat_add(m->kv_lora_rank, s->rope), 1);
			config_priced_module(&mat, s, QUANT_ATTENTION, i, "self_attn.kv_b_proj", m->kv_lora_rank,
				      sat_mul(nh, sat_add(s->nope, s->v_head)), 1);
			if ((r = implied_in(b, i, "attn_output", "self_attn.o_proj", s, QUANT_ATTENTION,
					    sat_mul(nh, s->v_head), h, 1)) < 0)
				return r;
		} else {
			if ((r = implied_in(b, i, "attn_q", "self_attn.q_proj", s, QUANT_ATTENTION, h, sat_mul(nh, hd), 1)) < 0 ||
			    (r = implied_in(b, i, "attn_k", "self_attn.k_proj", s, QUANT_ATTENTION, h, sat_mul(nkv, hd), 1)) < 0 ||
			    (r = implied_in(b, i, "attn_v", "self_attn.v_proj", s, QUANT_ATTENTION, h, sat_mul(nkv, hd), 1)) < 0 ||
			    (r = implied_in(b, i, "attn_output", "self_attn.o_proj", s, QUANT_ATTENTION, sat_mul(nh, hd), h,
					    1)) < 0)
				return r;
			if (s->qkv_bias)
				vector = sat_add(vector, sat_add(sat_mul(nh, hd), sat_mul(2, sat_mul(nkv, hd))));
			if (s->o_bias)
				vector = sat_add(vector, h);
			if (s->qk_norm)
				vector = sat_add(vector, qk_norm_params(s, nh, nkv, hd));
			if (f && f->sinks)
				vector = sat_add(vector, nh);
			/* A cross-attention layer norms Q and K and gates its attention and MLP (MllamaCrossAttentionDecoderLayer). */
			if (s->cross && s->cross[i])
				vector = sat_add(vector, sat_add(sat_mul(2, hd), 2));
		}
		vector = sat_add(vector, sat_mul(norm_params(s, h), s->norms));
		bool moe = m->n_expert && i >= s->first_dense;
		uint64_t ff = moe ? s->ff_moe : f && f->half_ff ? s->ff / 2 : s->ff;
		/* A gated MLP's gate and up (Phi-3-small's up_proj of 2 x ff) and down each have one too. */
		if (s->bias && !moe)
			vector = sat_add(vector, sat_add(f && f->plain_mlp ? ff : sat_mul(2, ff), h));
		enum quant_part part = moe ? QUANT_EXPERTS : QUANT_MLP;
		uint64_t copies = moe ? m->n_expert : 1;
		/* up (and gate) from the width, down back to it */
		/* each expert priced as the first is (a list leaves out all of a layer's experts or none) */
		if ((!(f && f->plain_mlp) &&
		     (r = implied_in(b, i, moe ? "ffn_gate_exps" : "ffn_gate", moe ? "mlp.experts.0.gate_proj" : "mlp.gate_proj",
				     s, part, h, ff, copies)) < 0) ||
		    (r = implied_in(b, i, moe ? "ffn_up_exps" : "ffn_up", moe ? "mlp.experts.0.up_proj" : "mlp.up_proj",
				    s, part, h, ff, copies)) < 0 ||
		    (r = implied_in(b, i, moe ? "ffn_down_exps" : "ffn_down", moe ? "mlp.experts.0.down_proj" : "mlp.down_proj",
				    s, part, ff, h, copies)) < 0)
			return r;
		/* gpt-oss: the router's bias, each expert's gate_up_proj_bias (2 x ff) and down_proj_bias */
		if (moe && f && f->moe_bias)
			vector = sat_add(vector, sat_mul(m->n_expert, sat_add(1, sat_add(sat_mul(2, ff), h))));
		if (moe && ((r = implied_in(b, i, "ffn_gate_inp", "mlp.gate", s, QUANT_ROUTER, h, m->n_expert, 1)) < 0 ||
			    (r = implied_in(b, i, "ffn_gate_shexp", "mlp.shared_experts.gate_proj", s, QUANT_MLP, h,
					    s->ff_shared, 1)) < 0 ||
			    (r = implied_in(b, i, "ffn_up_shexp", "mlp.shared_experts.up_proj", s, QUANT_MLP, h,
					    s->ff_shared, 1)) < 0 ||
			    (r = implied_in(b, i, "ffn_down_shexp", "mlp.shared_experts.down_proj", s, QUANT_MLP, s->ff_shared,
					    h, 1)) < 0))
			return r;
	}
	snprintf(name, sizeof(name), "blk.%u.weight", i);
	if ((r = config_implied(b, name, &mat, h, s)) < 0)
		return r;
	snprintf(name, sizeof(name), "blk.%u.norm", i);
	return config_implied_vector(b, name, vector, s);
}

/*
 * Zamba's and Zamba2's shared transformer blocks, each once, under the
 * first hybrid layer that takes it (as a Zamba2 checkpoint names them): a
 * norm of the attention's width (twice the model's), attention from it (Q,
 * K, V of its heads, O back to the width), the MLP's norm, its gate and up
 * (Zamba2's at once) and down, their biases where add_bias_linear.
 */
static int implied_shared(struct model_build *b, const struct hmn_model *m, const struct shape *s)
{
	uint64_t h = s->h, w2 = s->attn_width, hd = m->key_length, nh = m->n_head, nkv = s->kv_heads, ff = s->ff;
	uint64_t block = 0;
	char name[64];
	int r;
	for (uint32_t i = 0; i < m->n_layer && block < s->shared_blocks; i++) {
		if (!(s->parts[i] & HY_ATTN))
			continue;
		if ((r = implied_in(b, i, "attn_q", "shared_transformer.self_attn.q_proj", s, QUANT_ATTENTION, w2,
				    sat_mul(nh, hd), 1)) < 0 ||
		    (r = implied_in(b, i, "attn_k", "shared_transformer.self_attn.k_proj", s, QUANT_ATTENTION, w2,
				    sat_mul(nkv, hd), 1)) < 0 ||
		    (r = implied_in(b, i, "attn_v", "shared_transformer.self_attn.v_proj", s, QUANT_ATTENTION, w2,
				    sat_mul(nkv, hd), 1)) < 0 ||
		    (r = implied_in(b, i, "attn_output", "shared_transformer.self_attn.o_proj", s, QUANT_ATTENTION,
				    sat_mul(nh, hd), h, 1)) < 0 ||
		    (r = implied_in(b, i, "ffn_up", "shared_transformer.feed_forward.gate_up_proj", s, QUANT_MLP, h,
				    sat_mul(2, ff), 1)) < 0 ||
		    (r = implied_in(b, i, "ffn_down", "shared_transformer.feed_forward.down_proj", s, QUANT_MLP, ff, h,
				    1)) < 0)
			return r;
		uint64_t vector = sat_add(w2, h);
		if (s->mlp_bias)
			vector = sat_add(vector, sat_add(sat_mul(2, ff), h));
		snprintf(name, sizeof(name), "blk.%u.shared_norm", i);
		if ((r = config_implied_vector(b, name, vector, s)) < 0)
			return r;
		block++;
	}
	return 0;
}

/* The tensors the shape implies, for a config.json without weights. */
static int implied_tensors(struct model_build *b, const struct hmn_model *m, const struct shape *s)
{
	bool encoder = s->family && s->family->encoder;
	struct priced embd = { 0 }, positions = { 0 }, types = { 0 }, pooler = { 0 }, head = { 0 };
	int r;
	if (s->family && s->family->encdec)
		return config_implied_encoder_decoder(b, m, s);
	/* Embeddings are rows of the width: an MLX group runs along it, as a head's input does. */
	config_priced_module(&embd, s, QUANT_EMBED, UINT32_MAX, "model.embed_tokens", s->h,
			     sat_add(s->vocab, s->extra_vocab), 1);
	config_priced_add(&positions, s, QUANT_EMBED, s->h, s->positions, 1);
	config_priced_add(&types, s, QUANT_EMBED, s->h, s->types, 1);
	config_priced_module(&head, s, QUANT_HEAD, UINT32_MAX, "lm_head", s->h, s->vocab, 1);
	/* An encoder's pooler: a dense layer of the width (its bias with the vectors). */
	if (encoder)
		config_priced_add(&pooler, s, QUANT_MLP, s->h, s->h, 1);
	if ((r = config_implied(b, "token_embd.weight", &embd, s->h, s)) < 0 ||
	    (r = config_implied(b, "token_embd.positions", &positions, s->h, s)) < 0 ||
	    (r = config_implied(b, "token_embd.types", &types, s->h, s)) < 0)
		return r;
	/*
	 * Gemma 3n's per-layer embeddings (a row of layers x per-layer width for
	 * each of its own vocabulary), their projection from the width and its
	 * norm, and AltUp's projections into and out of its extra inputs.
	 */
	if (s->per_layer) {
		struct priced ple = { 0 }, ple_proj = { 0 }, altup = { 0 };
		uint64_t width = sat_mul(m->n_layer, s->per_layer);
		config_priced_module(&ple, s, QUANT_EMBED, UINT32_MAX, "model.language_model.embed_tokens_per_layer", width,
			      s->per_layer_vocab, 1);
		config_priced_module(&ple_proj, s, QUANT_MLP, UINT32_MAX, "model.language_model.per_layer_model_projection",
			      s->h, width, 1);
		config_priced_module(&altup, s, QUANT_MLP, UINT32_MAX, "model.language_model.altup_projections.0", s->h, s->h,
			      sat_mul(2, s->altup - 1));
		if ((r = config_implied(b, "per_layer_token_embd.weight", &ple, width, s)) < 0 ||
		    (r = config_implied(b, "per_layer_model_proj.weight", &ple_proj, s->h, s)) < 0 ||
		    (r = config_implied_vector(b, "per_layer_proj_norm.weight", s->per_layer, s)) < 0 ||
		    (r = config_implied(b, "altup_proj.weight", &altup, s->h, s)) < 0)
			return r;
	}
	for (uint32_t i = 0; i < m->n_layer; i++)
		if ((r = implied_layer(b, m, s, i)) < 0)
			return r;
	if (s->shared_blocks && (r = implied_shared(b, m, s)) < 0)
		return r;
	/* An encoder's norm is its embeddings' (BERT's embeddings.LayerNorm). */
	if ((r = config_implied_vector(b, encoder ? "token_embd.norm" : "output_norm.weight", norm_params(s, s->h), s)) < 0 ||
	    (encoder && ((r = config_implied(b, "output.pooler", &pooler, s->h, s)) < 0 ||
			 (r = config_implied_vector(b, "output.pooler_bias", s->h, s)) < 0)))
		return r;
	if (!s->tied && (r = config_implied(b, "output.weight", &head, s->h, s)) < 0)
		return r;
	if (!s->tied && s->output_bias && (r = config_implied_vector(b, "output.bias", s->vocab, s)) < 0)
		return r;
	return 0;
}

/* ---- the shape, read and checked --------------------------------------------- */

static int read_shape(const struct config *c, const struct arch_info *f, struct hmn_model *m,
		      struct shape *s)
{
	int r;
	if (f && f->encdec)
		return config_read_encoder_decoder(c, f, m, s);
	if ((r = config_read_common(c, f, m, s)) < 0)
		return r;
	if (f && f->hybrid == HYBRID_GEMMA3N)
		return config_read_gemma3n(c, f, m, s);
	if (f && f->hybrid)
		return config_read_hybrid(c, f, m, s);
	if (f && f->recurrent)
		return config_read_recurrent(c, m, s);
	return config_read_transformer(c, f, m, s);
}

/*
 * layer_types, when the config has it: a name for each layer (transformers
 * refuses another count); those with "sliding" in them slide. *ret_swa is
 * malloc'd, NULL when there is none.
 */
static int layer_types(const struct config *c, const struct hmn_model *m, bool **ret_swa, size_t *ret_n)
{
	const char *where = "";
	const cJSON *types = config_lookup(c, "layer_types", &where);
	if (!types) {
		*ret_swa = NULL;
		*ret_n = 0;
		return 0;
	}
	if (!cJSON_IsArray(types)) {
		char shown[64];
		config_describe(types, shown, sizeof(shown));
		return model_fail(c->e, -EINVAL, "%s: %slayer_types: %s is not a list of layer types", c->file, where,
				  shown);
	}
	int n = cJSON_GetArraySize(types);
	if (n < 0 || (unsigned)n != m->n_layer)
		return model_fail(c->e, -EINVAL, "%s: %slayer_types has %d %s for %u layer%s", c->file, where, n,
				  n == 1 ? "entry" : "entries", m->n_layer, m->n_layer == 1 ? "" : "s");
	bool *swa = calloc(m->n_layer, sizeof(*swa));
	if (!swa)
		return -ENOMEM;
	size_t i = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, types) {
		if (!cJSON_IsString(t)) {
			char shown[64];
			config_describe(t, shown, sizeof(shown));
			free(swa);
			return model_fail(c->e, -EINVAL, "%s: %slayer_types[%zu]: %s is not a layer type's name",
					  c->file, where, i, shown);
		}
		swa[i++] = strstr(t->valuestring, "sliding") != NULL;
	}
	*ret_swa = swa;
	*ret_n = i;
	return 0;
}

/*
 * sliding_window_pattern written as letters (EXAONE 4.0's "LLLG": L a
 * local, sliding layer, G a global one), repeated over the layers, where
 * layer_types does not say each: *ret_swa malloc'd, else NULL.
 */
static int pattern_letters(const struct config *c, const struct hmn_model *m, bool **ret_swa, size_t *ret_n)
{
	const char *where = "";
	const cJSON *v = config_lookup(c, "sliding_window_pattern", &where);
	*ret_swa = NULL;
	*ret_n = 0;
	if (!cJSON_IsString(v))
		return 0;
	size_t len = strlen(v->valuestring);
	bool letters = len > 0 && len <= MODEL_MAX_LAYERS;
	for (size_t i = 0; letters && i < len; i++)
		letters = v->valuestring[i] == 'L' || v->valuestring[i] == 'G';
	if (!letters) {
		char shown[64];
		config_describe(v, shown, sizeof(shown));
		return model_fail(c->e, -EINVAL, "%s: %ssliding_window_pattern: %s is not a pattern of L and G layers",
				  c->file, where, shown);
	}
	bool *swa = calloc(m->n_layer ? m->n_layer : 1, sizeof(*swa));
	if (!swa)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_layer; i++)
		swa[i] = v->valuestring[i % len] == 'L';
	*ret_swa = swa;
	*ret_n = m->n_layer;
	return 0;
}

/* The window, and which layers slide: layer_types, else the family's pattern or every layer. */
static int read_sliding(const struct config *c, const struct arch_info *f, struct hmn_model *m, bool **ret_swa,
			size_t *ret_n, uint32_t *ret_pattern)
{
	uint64_t window, pattern;
	bool use;
	bool *swa = NULL;
	size_t n = 0;
	int r;

	const cJSON *letters = config_lookup(c, "sliding_window_pattern", NULL);
	pattern = f ? f->swa_pattern : 0;
	/* 0 or null: no window. */
	if ((r = config_optional(c, KEYS("sliding_window"), 0, UINT32_MAX, 0, &window)) < 0 ||
	    (r = config_flag(c, "use_sliding_window", true, &use)) < 0 ||
	    (!cJSON_IsString(letters) &&
	     (r = config_optional(c, KEYS("sliding_window_pattern"), 1, MODEL_MAX_LAYERS, pattern, &pattern)) < 0) ||
	    (r = layer_types(c, m, &swa, &n)) < 0)
		return r;
	if (!swa && (r = pattern_letters(c, m, &swa, &n)) < 0)
		return r;
	/* Qwen2 names a window it does not use unless use_sliding_window says so. */
	m->sliding_window = use ? (uint32_t)window : 0;
	if (!m->sliding_window) {
		free(swa);
		swa = NULL;
		n = 0;
	}
	*ret_swa = swa;
	*ret_n = n;
	*ret_pattern = (uint32_t)pattern;
	return 0;
}

/*
 * Llama 3.2 Vision's text model: the layers cross_attention_layers names
 * attend to the image's features, not to the tokens before (no cache as
 * long as the context), and its embeddings have 8 rows past the vocabulary
 * (MllamaTextModel's vocab_size + 8).
 */
static int read_cross_layers(const struct config *c, const struct hmn_model *m, struct shape *s)
{
	const char *where = "";
	const cJSON *list = config_lookup(c, "cross_attention_layers", &where);
	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return model_fail(c->e, -EINVAL, "%s: %scross_attention_layers is not a list of layers", c->file, where);
	s->cross = calloc(m->n_layer ? m->n_layer : 1, sizeof(*s->cross));
	if (!s->cross)
		return -ENOMEM;
	size_t i = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, list) {
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble) ||
		    v->valuedouble >= m->n_layer)
			return model_fail(c->e, -EINVAL, "%s: %scross_attention_layers[%zu] is not one of its %u layers",
					  c->file, where, i, m->n_layer);
		s->cross[(size_t)v->valuedouble] = true;
		i++;
	}
	s->extra_vocab = 8;
	return 0;
}

/* The model's own name for its architecture: model_type, else the first of architectures. */
static const char *architecture_of(const struct config *c)
{
	const cJSON *type = config_lookup(c, "model_type", NULL);
	const cJSON *archs = cJSON_GetObjectItemCaseSensitive(c->root, "architectures");
	if (cJSON_IsString(type))
		return type->valuestring;
	if (cJSON_IsArray(archs) && cJSON_IsString(cJSON_GetArrayItem(archs, 0)))
		return cJSON_GetArrayItem(archs, 0)->valuestring;
	return NULL;
}

/* Whether the config says any of its shape itself, or leaves all of it to its class's defaults. */
static bool shape_written(const struct config *c)
{
	const char *const *const shape[] = { LAYER_KEYS, WIDTH_KEYS, VOCAB_KEYS, HEAD_KEYS, FF_KEYS };
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++)
		for (const char *const *k = shape[i]; *k; k++)
			if (config_lookup(c, *k, NULL))
				return true;
	return false;
}

/* Everything the estimate takes from the config, checked, into m and s. */
static int read_config(struct config *c, struct hmn_model *m, struct shape *s, bool implies_tensors,
		       bool **ret_swa, size_t *ret_n, uint32_t *ret_pattern)
{
	const char *arch = architecture_of(c);
	enum hmn_dtype dt = HMN_DTYPE_NONE;
	int r;

	if (!arch)
		return model_fail(c->e, -EINVAL, "%s: no model_type: not a model's config.json", c->file);
	char name[64];
	printable_name(arch, name, sizeof(name));
	m->architecture = arena_strdup(m->arena, name);
	if (!m->architecture)
		return -ENOMEM;
	c->model_type = m->architecture;
	s->family = c->family = arch_find_model_type(arch);
	s->extra_vocab = s->family ? s->family->extra_vocab : 0;
	/*
	 * Read as some other family's, its size was wrong by -41% to +225%
	 * (issue 27: encoders priced as decoders, Persimmon's MLP as gated),
	 * with exit 0. The weights' headers say it exactly.
	 */
	c->bound = !s->family;
	if (!s->family && implies_tensors && !c->by_index)
		return model_fail(c->e, -EINVAL, "%s: model_type '%s' is not one hmn knows: its size cannot be read "
				  "from config.json alone (give hmn the model's folder: its weights' safetensors headers, "
				  "or its model.safetensors.index.json)", c->file, m->architecture);
	if ((r = read_shape(c, s->family, m, s)) < 0 || (r = read_cross_layers(c, m, s)) < 0 ||
	    /* DeepSeek-V3's (latent attention's families) and MiMo's: layers for speculative decoding. */
	    ((m->kv_lora_rank || (s->family && s->family->mimo_mtp)) &&
	     (r = config_optional(c, KEYS("num_nextn_predict_layers"), 0, MODEL_MAX_LAYERS, 0, &s->mtp)) < 0) ||
	    (r = torch_dtype(c, &dt)) < 0 ||
	    (r = quant_read(c->file, c->root, c->modelopt, c->gptq, &s->q, c->e)) < 0)
		return r;
	/* Each such layer is a whole decoder layer: DeepSeek-V3 has 1, MiMo 1; more than the model's own is no model. */
	if (s->mtp > m->n_layer)
		return model_fail(c->e, -EINVAL, "%s: num_nextn_predict_layers: %" PRIu64 " is more than its %u layers",
				  c->file, s->mtp, m->n_layer);
	/*
	 * None named: transformers loads float32. A quantized checkpoint that
	 * names none (gpt-oss) keeps the rest in what its quantizer loads it
	 * in: GPTQ and AWQ kernels float16, the others bfloat16.
	 */
	if (dt == HMN_DTYPE_NONE && s->q.name[0])
		dt = s->q.layout == QUANT_LAYOUT_GPTQ || s->q.layout == QUANT_LAYOUT_AWQ ? HMN_DTYPE_F16 : HMN_DTYPE_BF16;
	s->weights = dt != HMN_DTYPE_NONE ? dt : HMN_DTYPE_F32;
	s->dtype_unnamed = dt == HMN_DTYPE_NONE;
	if (dt != HMN_DTYPE_NONE)
		m->float_dtype = dt;
	if ((r = read_sliding(c, s->family, m, ret_swa, ret_n, ret_pattern)) < 0)
		return r;
	/* Llama 4's chunked attention: a chunk's tokens are all its RoPE layers keep, as a window's. */
	if (s->chunked && s->chunk) {
		free(*ret_swa);
		*ret_swa = s->chunked;
		s->chunked = NULL;
		*ret_n = m->n_layer;
		m->sliding_window = (uint32_t)s->chunk;
	}
	return 0;
}

/* Does [s, end) start the bare word w (not within a longer word: "NaNx", "Infinityy")? */
static bool bare_word_at(const char *s, const char *end, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(end - s) < n || memcmp(s, w, n) != 0)
		return false;
	return s + n == end || !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
				 (s[n] >= '0' && s[n] <= '9') || s[n] == '_');
}

char *json_python_words(const char *text, size_t len, size_t *ret_len)
{
	static const struct {
		const char *word, *number;
	} words[] = { { "-Infinity", "-1e999" }, { "Infinity", "1e999" }, { "NaN", "null" } };
	const char *end = text + len;
	bool in_string = false, found = false;
	char *out = NULL;
	size_t at = 0;

	/* Twice: once to find a word (most configs have none: no copy), then to write the copy. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!found || !(out = malloc(len + len / 3 + 2))) /* NaN -> null: at most 4/3 as long */
				return NULL;
			in_string = false;
		}
		for (const char *s = text; s < end;) {
			size_t k = 0, n_words = sizeof(words) / sizeof(words[0]);
			if (!in_string)
				while (k < n_words && !bare_word_at(s, end, words[k].word))
					k++;
			if (!in_string && k < n_words && (s == text || !((s[-1] >= 'a' && s[-1] <= 'z') ||
									  (s[-1] >= 'A' && s[-1] <= 'Z') ||
									  (s[-1] >= '0' && s[-1] <= '9') || s[-1] == '_'))) {
				found = true;
				if (pass == 1) {
					memcpy(out + at, words[k].number, strlen(words[k].number));
					at += strlen(words[k].number);
				}
				s += strlen(words[k].word);
				continue;
			}
			if (*s == '"')
				in_string = !in_string;
			else if (in_string && *s == '\\' && s + 1 < end) {
				if (pass == 1)
					out[at++] = *s;
				s++; /* the escaped character, a quote included, is the string's */
			}
			if (pass == 1)
				out[at++] = *s;
			s++;
		}
	}
	out[at] = '\0';
	*ret_len = at;
	return out;
}

/* The format's name, the type the weights are said in, and what the user may want to know of either. */
static void say_quantization(struct hmn_model *m, const struct shape *s, bool implies_tensors)
{
	char w[160];
	if (s->q.name[0]) {
		m->quantization = arena_strdup(m->arena, s->q.name);
		/* A tally of the shards' types names int32 words (GPTQ) or bytes (bitsandbytes): the format's type says more. */
		m->dtype = s->q.dtype;
	} else if (s->q.unknown[0]) {
		snprintf(w, sizeof(w), "quantization '%s' is not one hmn knows: priced as %s weights", s->q.unknown,
			 implies_tensors ? hmn_dtype_name(s->weights) : "its files'");
		model_add_warning(m, w);
	}
	/* smollm3's and glm-4's configs name no torch_dtype: how they are stored is not known from config.json. */
	if (!s->q.name[0] && implies_tensors && s->dtype_unnamed)
		m->dtype_note = "names no torch_dtype: priced as float32 (transformers' default); vLLM and llama.cpp"
				" load it in 16 bits (--dtype bf16 prices that)";
	else if (!s->q.name[0] && (implies_tensors ? s->weights == HMN_DTYPE_F32 : m->dtype == HMN_DTYPE_F32))
		m->dtype_note = "stored in float32: priced as stored; vLLM and llama.cpp load it in 16 bits"
				" (--dtype bf16 prices that)";
}

/*
 * Multi-token-prediction layers (num_nextn_predict_layers), trained to
 * propose the tokens after the next for speculative decoding. They are in
 * the download, but vLLM's DeepseekV3ForCausalLM and MiMoForCausalLM skip
 * them (get_spec_layer_idx_from_weight_name; hf_to_vllm_mapper drops
 * model.mtp_layers.): only its deepseek_mtp or mimo_mtp drafter loads them,
 * when speculative decoding asks. llama.cpp's convert_hf_to_gguf.py drops
 * DeepSeek-V3's. So from config.json they are not priced, and said with
 * their size: DeepSeek-V3's each one of its mixture layers (the last's),
 * eh_proj of 2 x width by width, three norms (enorm, hnorm, shared_head's)
 * and its own embeddings and head; MiMo's each one of its decoder layers,
 * input_proj of 2 x width by width and three norms (token_layernorm,
 * hidden_layernorm, final_layernorm), the model's embeddings and head
 * shared. With the weights' headers the files are priced as they are, the
 * layers among them (as other tensors), and said so: the headers are what
 * was downloaded, and hmn does not guess which of their tensors a runtime
 * leaves on the disk.
 */
static void say_mtp(struct hmn_model *m, const struct shape *s, bool implies_tensors)
{
	char w[240];
	if (!implies_tensors) {
		snprintf(w, sizeof(w), "its %" PRIu64 " multi-token-prediction layer%s %s priced as %s files hold %s:"
			 " vLLM loads %s only for speculative decoding", s->mtp, s->mtp == 1 ? "" : "s",
			 s->mtp == 1 ? "is" : "are", s->mtp == 1 ? "its" : "their", s->mtp == 1 ? "it" : "them",
			 s->mtp == 1 ? "it" : "them");
		model_add_note(m, w);
		return;
	}
	const struct hmn_model_layer *l = &m->layers[m->n_layer - 1];
	uint64_t unit = dtype_price(s->weights, 1);
	uint64_t layer = sat_add(l->matrix_elements, unit ? l->vector_bytes / unit : 0);
	uint64_t extra = sat_add(sat_mul(2, sat_mul(s->h, s->h)), sat_mul(3, s->h));
	if (!(s->family && s->family->mimo_mtp))
		extra = sat_add(extra, sat_mul(2, sat_mul(s->vocab, s->h)));
	uint64_t n = sat_mul(s->mtp, sat_add(layer, extra));
	snprintf(w, sizeof(w), "its %" PRIu64 " multi-token-prediction layer%s (%.2fB parameters in the download) not "
		 "priced: vLLM loads %s only for speculative decoding", s->mtp, s->mtp == 1 ? "" : "s",
		 (double)n / 1e9, s->mtp == 1 ? "it" : "them");
	model_add_note(m, w);
}

int config_read(const char *file, const char *text_json, size_t len, struct model_build *b, bool implies_tensors,
		struct model_error *e)
{
	struct hmn_model *m = b->m;
	struct config c = {
		.file = file, .e = e,
		.names = { .file = file, .prefix = "", .heads = "num_attention_heads",
			   .kv_heads = "num_key_value_heads", .width = "hidden_size", .head_dim = "head_dim",
			   .experts_used = "num_experts_per_tok" },
	};
	size_t python_len = 0;
	char *python = json_python_words(text_json, len, &python_len);
	cJSON *root = python ? cJSON_ParseWithLength(python, python_len) : cJSON_ParseWithLength(text_json, len);
	free(python);
	struct shape s = { 0 };
	bool *swa = NULL;
	size_t n_swa = 0;
	uint32_t pattern = 0;
	int r;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return model_fail(e, -EINVAL, "%s: not a model's config.json (not a JSON object)", c.file);
	}
	c.root = root;
	c.by_index = b->priced_by_index;
	c.text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
	if (!cJSON_IsObject(c.text))
		c.text = root;
	/* NVIDIA ModelOpt's hf_quant_config.json and AutoGPTQ's quantize_config.json beside it, where open.c found them. */
	/*
	 * One that is not JSON stands as a null, which quant_read() says is not
	 * an object where it reads it: a stray quantize_config.json beside a
	 * config.json that names its own quantization is not read. Both live
	 * until the tensors are priced: s.q borrows their lists of modules.
	 */
	cJSON *modelopt = b->modelopt ? cJSON_ParseWithLength(b->modelopt, b->modelopt_len) : NULL;
	cJSON *gptq = b->gptq ? cJSON_ParseWithLength(b->gptq, b->gptq_len) : NULL;
	if (b->modelopt && !modelopt)
		modelopt = cJSON_CreateNull();
	if (b->gptq && !gptq)
		gptq = cJSON_CreateNull();
	if ((b->modelopt && !modelopt) || (b->gptq && !gptq)) {
		r = model_fail(e, -ENOMEM, "%s: out of memory", c.file);
	} else {
		c.modelopt = modelopt;
		c.gptq = gptq;
		r = read_config(&c, m, &s, implies_tensors, &swa, &n_swa, &pattern);
	}
	if (r >= 0 && implies_tensors && (r = implied_tensors(b, m, &s)) < 0)
		r = model_fail(e, r, "%s: the shape it gives is too large", c.file);
	cJSON_Delete(modelopt);
	cJSON_Delete(gptq);
	memset(s.q.keep, 0, sizeof(s.q.keep));
	/* A vision-language model's image tower and projector: the vision part (model/vision.c). */
	if (r >= 0 && implies_tensors)
		r = vision_read(root, c.file, s.h, s.weights, &s.q, b, e);
	/*
	 * Gemma 3n's (model_type gemma3n) image and audio towers and their
	 * embedders are priced by vision.c, as the vision part, as their headers
	 * (model.vision_tower., model.audio_tower., model.embed_vision.,
	 * model.embed_audio.) are. An audio_config beside a model_type of
	 * another name (a gemma3n_text) is not read there: said left out.
	 */
	const cJSON *top_type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
	if (r >= 0 && implies_tensors && s.per_layer &&
	    !(cJSON_IsString(top_type) && !strcmp(top_type->valuestring, "gemma3n")) &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "audio_config")))
		model_add_warning(m, "its audio_config is not one hmn prices: the audio tower is left out");
	/* The shards' packed words hold as many weights as the config's bits say. */
	if (r >= 0 && !implies_tensors)
		model_build_packed_bits(b, quant_word_bits(&s.q));
	/* A sparse config names some of its shape (Llava 1.5's text_config: its vocabulary); one that names none is said. */
	bool assumed = r >= 0 && c.family && !shape_written(&c);
	cJSON_Delete(root);
	if (r >= 0)
		r = model_build_finish(b, e);
	free(s.chunked);
	free(s.layer_ff);
	if (r < 0) {
		free(swa);
		free(s.cross);
		free(s.parts);
		free(s.layer_kv);
		return r;
	}
	if (implies_tensors)
		m->tied_embeddings = s.tied;
	say_quantization(m, &s, implies_tensors);
	if (s.mtp && m->n_layer)
		say_mtp(m, &s, implies_tensors);
	/* An encoder's output is its hidden states (and pooler): no head scores the vocabulary, no logits. */
	if (s.family && s.family->encoder)
		m->n_vocab = 0;
	const struct arch_info *f = s.family;
	/*
	 * The model_type looked up as a GGUF name first: one that is the GGUF
	 * name of a recurrent architecture without a config class here (mamba2,
	 * rwkv6, rwkv7) keeps a state in every layer, though its shape is read
	 * as a generic transformer's, with the warning. Where both lookups
	 * answer, they answer the same entry.
	 */
	const struct arch_info *info = arch_find_gguf(m->architecture);
	if (!f) {
		/* An upper bound: no layer assumed to slide, whatever the config says of windows. */
		m->sliding_window = 0;
		free(swa);
		swa = NULL;
		n_swa = 0;
	}
	model_set_layer_kinds(m, info ? info->recurrent : f && f->recurrent, pattern, swa, n_swa);
	free(swa);
	for (uint32_t i = 0; s.cross && i < m->n_layer; i++)
		if (s.cross[i])
			m->layers[i].kind = HMN_LAYER_NO_CACHE;
	free(s.cross);
	/* A hybrid's: a Mamba-2 mixer keeps its state, attention its cache, an MLP or mixture nothing. */
	for (uint32_t i = 0; s.parts && i < m->n_layer; i++) {
		struct hmn_model_layer *l = &m->layers[i];
		if (!(s.parts[i] & HY_ATTN))
			l->n_head_kv = 0;
		else if (s.layer_kv)
			l->n_head_kv = s.layer_kv[i];
		bool recurrent = s.parts[i] & (HY_SSM | HY_GDN | HY_MAMBA);
		/* Falcon-H1's: attention beside the mixer, a cache and a state (hmn_model_layer.state). */
		if (recurrent && s.parts[i] & HY_ATTN) {
			l->state = true;
			continue;
		}
		l->kind = recurrent ? HMN_LAYER_RECURRENT : s.parts[i] & HY_ATTN ? l->kind : HMN_LAYER_NO_CACHE;
	}
	/* Gemma 3n's last num_kv_shared_layers read an earlier layer's K and V: no cache of their own. */
	for (uint64_t i = m->n_layer - (s.kv_shared < m->n_layer ? s.kv_shared : m->n_layer); i < m->n_layer; i++)
		m->layers[i].kind = HMN_LAYER_NO_CACHE;
	free(s.parts);
	free(s.layer_kv);
	if (f && f->encdec)
		config_encoder_decoder_layers(m, &s);
	if (!f) {
		b->unknown_family = true;
		model_warn_unknown_architecture(m, "model_type",
						c.by_index ? "the index's total_size" : "their headers");
		if (s.heads_bounded)
			model_add_warning(m, "config.json names no heads: K and V taken as wide as the model");
	} else if (assumed) {
		/* m->architecture: the model_type the entry was found by, one of the table's names. */
		char w[160];
		snprintf(w, sizeof(w), "no shape of its own: read with transformers' defaults for %s (%u layers of width %u)",
			 m->architecture, m->n_layer, m->n_embd);
		model_add_warning(m, w);
	}
	return 0;
}
