/*
 * The encoder-decoders' config.json (arch_info.encdec): T5 (and mT5, UMT5),
 * BART (and mBART), Whisper, each from its own config class's keys and
 * defaults (transformers' configuration_t5.py, configuration_bart.py,
 * configuration_whisper.py), its layers as its modeling_*.py builds them.
 *
 * The model's layers are the encoder's, then the decoder's (n_layer both:
 * whisper-large-v3's 64). The encoder keeps nothing between steps; each
 * decoder layer keeps K and V of the tokens it has generated (self-attention)
 * and of the encoder's whole output (cross-attention), both for the whole
 * sequence. What the context is:
 * - Whisper: the decoder's tokens, at most max_target_positions (448, its
 *   trained context: beyond it hmn warns as for any model); the encoder's
 *   output is always max_source_positions long (1500: 30 s of audio, 3000
 *   mel frames halved by the second convolution), whatever the context.
 *   vLLM sizes it so (its encoder-decoder cache for Whisper, --max-model-len
 *   448).
 * - T5 and BART: the input of the encoder is the context, and the decoder's
 *   output may be as long (vLLM's max_model_len bounds both the encoder's
 *   prompt and the decoder's): the cross-attention keeps as many tokens as
 *   the self-attention. BART's trained context is max_position_embeddings;
 *   T5's relative positions have none: n_positions where the config writes
 *   it (t5-small's 512), else the 512 tokens T5 was trained on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/config-encoder-decoder.h"
#include "model/config-keys.h"
#include "model/config-tensors.h"
#include "model/quant.h"

/*
 * count matrices of in x out (in: the input width, along which a
 * quantization's groups run) of class part, Hugging Face's module (NULL:
 * the class decides), as one tensor called name, at what the checkpoint's
 * quantization stores them in.
 */
static int implied_matrix(struct model_build *b, const char *name, const struct shape *s, enum quant_part part,
			  const char *module, uint64_t in, uint64_t out, uint64_t count)
{
	struct priced p = { 0 };
	config_priced_module(&p, s, part, UINT32_MAX, module, in, out, count);
	return config_implied(b, name, &p, in, s);
}

/* T5's layers: mT5's and UMT5's too. */
static bool is_t5(const struct arch_info *f)
{
	return f->encdec == ENCDEC_T5 || f->encdec == ENCDEC_MT5 || f->encdec == ENCDEC_UMT5;
}

/*
 * T5's feed_forward_proj: "ACT" (one input matrix, wi) or "gated-ACT" (two,
 * wi_0 and wi_1: T5 v1.1, Flan-T5, mT5), as T5Config splits it on '-';
 * anything else T5Config refuses, and so does hmn, naming the key.
 */
static int read_feed_forward(const struct config *c, const struct arch_info *f, bool *ret_gated)
{
	const char *where = "";
	const cJSON *v = config_lookup(c, "feed_forward_proj", &where);
	if (!v) {
		/* T5Config's "relu"; MT5Config's and UMT5Config's "gated-gelu". */
		*ret_gated = f->encdec == ENCDEC_MT5 || f->encdec == ENCDEC_UMT5;
		return 0;
	}
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	const char *dash = s ? strchr(s, '-') : NULL;
	bool valid = s && *s && (!dash || (dash - s == 5 && !strncmp(s, "gated", 5) && dash[1] && !strchr(dash + 1, '-')));
	if (!valid) {
		char shown[64];
		config_describe(v, shown, sizeof(shown));
		return model_fail(c->e, -EINVAL, "%s: %sfeed_forward_proj: %s is not ACT or gated-ACT (\"relu\", "
				  "\"gated-gelu\")", c->file, where, shown);
	}
	*ret_gated = dash != NULL;
	return 0;
}

/* Heads of a BART or Whisper stack: they split the width (BartAttention refuses it otherwise). */
static int read_heads(const struct config *c, const char *key, uint64_t width, uint64_t *ret)
{
	int r = config_required(c, KEYS(key), 1, MODEL_MAX_WIDTH, ret);
	if (r < 0)
		return r;
	if (width % *ret)
		return model_fail(c->e, -EINVAL, "%s: %s: %" PRIu64 " does not divide d_model, %" PRIu64, c->file, key,
				  *ret, width);
	return 0;
}

/*
 * A T5 encoder alone (T5EncoderModel: the text encoder beside FLUX and
 * Stable Diffusion 3, UMT5EncoderModel beside Wan): its checkpoint holds no
 * decoder and no head, whatever num_decoder_layers says.
 */
static bool encoder_only(const struct config *c)
{
	const cJSON *archs = cJSON_GetObjectItemCaseSensitive(c->root, "architectures");
	const cJSON *first = cJSON_IsArray(archs) ? cJSON_GetArrayItem(archs, 0) : NULL;
	if (!cJSON_IsString(first))
		return false;
	size_t n = strlen(first->valuestring);
	return n >= 12 && !strcmp(first->valuestring + n - 12, "EncoderModel");
}

int config_read_encoder_decoder(const struct config *c, const struct arch_info *f, struct hmn_model *m,
				struct shape *s)
{
	uint64_t enc_layers, dec_layers, enc_heads, dec_heads, head_dim, enc_ff, dec_ff, context, enc_len = 0;
	bool t5 = is_t5(f);
	int r;

	if ((r = config_required(c, KEYS("d_model"), 1, MODEL_MAX_WIDTH, &s->h)) < 0 ||
	    (r = config_required(c, KEYS("vocab_size"), 1, MODEL_MAX_WIDTH, &s->vocab)) < 0 ||
	    (r = config_flag(c, "tie_word_embeddings", f->tied, &s->tied)) < 0)
		return r;
	if (t5) {
		/* T5's heads need not split the width: each is d_kv wide, num_heads x d_kv in all. */
		if ((r = config_required(c, KEYS("num_layers"), 1, MODEL_MAX_LAYERS, &enc_layers)) < 0 ||
		    (r = config_optional(c, KEYS("num_decoder_layers"), 0, MODEL_MAX_LAYERS, enc_layers,
					 &dec_layers)) < 0 ||
		    (r = config_required(c, KEYS("num_heads"), 1, MODEL_MAX_WIDTH, &dec_heads)) < 0 ||
		    (r = config_required(c, KEYS("d_kv"), 1, MODEL_MAX_WIDTH, &head_dim)) < 0 ||
		    (r = config_required(c, KEYS("d_ff"), 1, MODEL_MAX_WIDTH, &dec_ff)) < 0 ||
		    (r = config_required(c, KEYS("relative_attention_num_buckets"), 1, MODEL_MAX_WIDTH, &s->buckets)) < 0 ||
		    (r = read_feed_forward(c, f, &s->gated)) < 0 ||
		    (r = config_required(c, KEYS("n_positions"), 1, MODEL_MAX_CONTEXT, &context)) < 0)
			return r;
		enc_heads = dec_heads;
		enc_ff = dec_ff;
		if (encoder_only(c))
			dec_layers = 0;
		else if (dec_layers == 0)
			/* T5ForConditionalGeneration generates with its decoder: none is no model to price. */
			return model_fail(c->e, -EINVAL, "%s: num_decoder_layers: 0 is no decoder for a model that "
					  "generates (only a T5 encoder alone, architectures' *EncoderModel, has none)",
					  c->file);
	} else {
		if ((r = config_required(c, KEYS("encoder_layers"), 1, MODEL_MAX_LAYERS, &enc_layers)) < 0 ||
		    (r = config_required(c, KEYS("decoder_layers"), 1, MODEL_MAX_LAYERS, &dec_layers)) < 0 ||
		    (r = read_heads(c, "encoder_attention_heads", s->h, &enc_heads)) < 0 ||
		    (r = read_heads(c, "decoder_attention_heads", s->h, &dec_heads)) < 0 ||
		    (r = config_required(c, KEYS("encoder_ffn_dim"), 1, MODEL_MAX_WIDTH, &enc_ff)) < 0 ||
		    (r = config_required(c, KEYS("decoder_ffn_dim"), 1, MODEL_MAX_WIDTH, &dec_ff)) < 0)
			return r;
		head_dim = s->h / dec_heads;
		if (f->encdec == ENCDEC_WHISPER) {
			if ((r = config_required(c, KEYS("num_mel_bins"), 1, MODEL_MAX_WIDTH, &s->mels)) < 0 ||
			    (r = config_required(c, KEYS("max_source_positions"), 1, MODEL_MAX_CONTEXT, &enc_len)) < 0 ||
			    (r = config_required(c, KEYS("max_target_positions"), 1, MODEL_MAX_CONTEXT, &context)) < 0)
				return r;
		} else if ((r = config_required(c, KEYS("max_position_embeddings"), 1, MODEL_MAX_CONTEXT, &context)) < 0) {
			return r;
		}
	}
	if (enc_layers + dec_layers > MODEL_MAX_LAYERS)
		return model_fail(c->e, -EINVAL, "%s: %" PRIu64 " encoder and %" PRIu64 " decoder layers, more than %u",
				  c->file, enc_layers, dec_layers, MODEL_MAX_LAYERS);
	s->enc_layers = enc_layers;
	s->enc_ff = enc_ff;
	s->ff = dec_ff;
	s->kv_heads = dec_heads;
	s->positions = context;
	m->n_layer = (uint32_t)(enc_layers + dec_layers);
	m->n_embd = (uint32_t)s->h;
	/* An encoder alone scores no vocabulary (hmn_model.n_vocab 0: no logits), as BERT's. */
	m->n_vocab = dec_layers ? (uint32_t)s->vocab : 0;
	m->n_head = (uint32_t)(dec_layers ? dec_heads : enc_heads);
	m->n_head_kv = dec_layers ? (uint32_t)dec_heads : 0;
	m->key_length = m->value_length = (uint32_t)head_dim;
	m->n_ff = (uint32_t)(enc_ff > dec_ff ? enc_ff : dec_ff);
	m->context_length = m->context_limit = context;
	/* BART's and Whisper's positions are learned tables; T5's are relative buckets, with no end. */
	m->learned_positions = !t5;
	m->encoder_length = enc_len;
	return 0;
}

void config_encoder_decoder_layers(struct hmn_model *m, const struct shape *s)
{
	for (uint32_t i = 0; i < m->n_layer; i++) {
		struct hmn_model_layer *l = &m->layers[i];
		bool decoder = i >= s->enc_layers;
		l->kind = decoder ? HMN_LAYER_ATTENTION : HMN_LAYER_NO_CACHE;
		l->n_head_kv = decoder ? (uint32_t)s->kv_heads : 0;
		l->cross = decoder;
	}
}

/* ---- the tensors a config implies ------------------------------------------------- */

/* Hugging Face's names of a layer's modules, for the lists of modules a quantization leaves in the float type. */
struct names {
	char attn[96], cross[96], ff[96];
};

static void layer_names(const struct arch_info *f, bool decoder, uint32_t i, struct names *n)
{
	const char *stack = decoder ? "decoder" : "encoder";
	if (is_t5(f)) {
		snprintf(n->attn, sizeof(n->attn), "%s.block.%" PRIu32 ".layer.0.SelfAttention.", stack, i);
		snprintf(n->cross, sizeof(n->cross), "%s.block.%" PRIu32 ".layer.1.EncDecAttention.", stack, i);
		snprintf(n->ff, sizeof(n->ff), "%s.block.%" PRIu32 ".layer.%d.DenseReluDense.", stack, i, decoder ? 2 : 1);
		return;
	}
	snprintf(n->attn, sizeof(n->attn), "model.%s.layers.%" PRIu32 ".self_attn.", stack, i);
	snprintf(n->cross, sizeof(n->cross), "model.%s.layers.%" PRIu32 ".encoder_attn.", stack, i);
	snprintf(n->ff, sizeof(n->ff), "model.%s.layers.%" PRIu32 ".", stack, i);
}

/* module's name after prefix, in buf. */
static const char *named(char *buf, size_t size, const char *prefix, const char *module)
{
	snprintf(buf, size, "%s%s", prefix, module);
	return buf;
}

/*
 * Q, K, V and O of inner = heads x head width (T5's q, k, v, o; BART's and
 * Whisper's q_proj, k_proj, v_proj, out_proj), as layer at's tensors called
 * role_q ... (attn_q, cross_attn_q: the roles llama.cpp's quantizer gives them).
 */
static int attention(struct model_build *b, const struct shape *s, uint32_t at, const char *role, const char *prefix,
		     uint64_t inner)
{
	static const char *const parts[4] = { "q", "k", "v", "output" };
	bool t5 = is_t5(s->family);
	static const char *const t5_modules[4] = { "q", "k", "v", "o" };
	static const char *const modules[4] = { "q_proj", "k_proj", "v_proj", "out_proj" };
	for (int k = 0; k < 4; k++) {
		char name[64], module[128];
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".%s_%s.weight", at, role, parts[k]);
		int r = implied_matrix(b, name, s, QUANT_ATTENTION,
					      named(module, sizeof(module), prefix, t5 ? t5_modules[k] : modules[k]),
					      k == 3 ? inner : s->h, k == 3 ? s->h : inner, 1);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * One layer of a stack (decoder: with cross-attention), its index at
 * among all: its matrices, then its vectors in one tensor (norms, biases,
 * T5's relative attention bias).
 */
static int implied_stack_layer(struct model_build *b, const struct hmn_model *m, const struct shape *s, uint32_t at)
{
	const struct arch_info *f = s->family;
	bool decoder = at >= s->enc_layers;
	uint32_t i = decoder ? at - (uint32_t)s->enc_layers : at;
	uint64_t h = s->h, ff = decoder ? s->ff : s->enc_ff;
	bool t5 = is_t5(f);
	/* T5's heads are d_kv wide each, whatever the width; BART's and Whisper's split it. */
	uint64_t inner = t5 ? sat_mul(m->key_length, m->n_head) : h;
	struct names n;
	char name[64], module[128];
	int r;

	layer_names(f, decoder, i, &n);
	if ((r = attention(b, s, at, "attn", n.attn, inner)) < 0 ||
	    (decoder && (r = attention(b, s, at, "cross_attn", n.cross, inner)) < 0))
		return r;
	/* T5's gated wi_0 is the activated branch (llama.cpp's ffn_gate), wi_1 the linear one (ffn_up). */
	snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_up.weight", at);
	if ((r = implied_matrix(b, name, s, QUANT_MLP,
				       named(module, sizeof(module), n.ff, t5 ? (s->gated ? "wi_1" : "wi") : "fc1"),
				       h, ff, 1)) < 0)
		return r;
	if (s->gated) {
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_gate.weight", at);
		if ((r = implied_matrix(b, name, s, QUANT_MLP, named(module, sizeof(module), n.ff, "wi_0"), h, ff,
					       1)) < 0)
			return r;
	}
	snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_down.weight", at);
	if ((r = implied_matrix(b, name, s, QUANT_MLP, named(module, sizeof(module), n.ff, t5 ? "wo" : "fc2"),
				       ff, h, 1)) < 0)
		return r;
	/* A norm before each block: the self-attention, the cross-attention, the feed-forward. */
	uint64_t blocks = decoder ? 3 : 2, vector;
	if (t5) {
		/* T5LayerNorm: a weight, no bias. The relative attention bias: the first layer's, UMT5's every layer's. */
		vector = sat_mul(blocks, h);
		if (i == 0 || f->encdec == ENCDEC_UMT5) {
			snprintf(name, sizeof(name), "blk.%" PRIu32 ".attn_rel_b.weight", at);
			if ((r = implied_matrix(b, name, s, QUANT_PARTS, NULL, m->n_head, s->buckets, 1)) < 0)
				return r;
		}
	} else {
		/* LayerNorms (weight and bias); each attention's biases (Whisper's K has none); fc1's and fc2's. */
		uint64_t attn_bias = f->encdec == ENCDEC_WHISPER ? sat_mul(3, h) : sat_mul(4, h);
		vector = sat_add(sat_mul(sat_mul(2, blocks), h), sat_add(sat_mul(blocks - 1, attn_bias), sat_add(ff, h)));
	}
	snprintf(name, sizeof(name), "blk.%" PRIu32 ".norm", at);
	return config_implied_vector(b, name, vector, s);
}

/*
 * T5: one embedding shared by both stacks (shared), their final norms, the
 * head unless tied. BART: the shared embedding, learned positions of
 * max_position_embeddings + 2 (BartLearnedPositionalEmbedding's offset) and
 * layernorm_embedding in each stack, mBART a final LayerNorm in each too,
 * final_logits_bias (a buffer: not among transformers' parameters, but in
 * the checkpoint and on the GPU), the head tied. Whisper: the encoder's two
 * convolutions (num_mel_bins to d_model, then d_model to d_model, kernel 3,
 * with biases) and its 1500 positions, the decoder's embedding and 448
 * positions, a final LayerNorm in each, proj_out tied.
 */
int config_implied_encoder_decoder(struct model_build *b, const struct hmn_model *m, const struct shape *s)
{
	const struct arch_info *f = s->family;
	uint64_t h = s->h, dec_layers = m->n_layer - s->enc_layers, stacks = dec_layers ? 2 : 1;
	bool t5 = is_t5(f);
	int r;

	if ((r = implied_matrix(b, "token_embd.weight", s, QUANT_EMBED,
				       t5 ? "shared" : f->encdec == ENCDEC_WHISPER ? "model.decoder.embed_tokens" : "model.shared",
				       h, s->vocab, 1)) < 0)
		return r;
	if (f->encdec == ENCDEC_WHISPER &&
	    ((r = implied_matrix(b, "conv1.weight", s, QUANT_PARTS, NULL, sat_mul(s->mels, 3), h, 1)) < 0 ||
	     (r = implied_matrix(b, "conv2.weight", s, QUANT_PARTS, NULL, sat_mul(h, 3), h, 1)) < 0 ||
	     (r = config_implied_vector(b, "conv.bias", sat_mul(2, h), s)) < 0 ||
	     (r = implied_matrix(b, "position_embd.encoder", s, QUANT_EMBED, NULL, h, m->encoder_length, 1)) < 0 ||
	     (r = implied_matrix(b, "position_embd.decoder", s, QUANT_EMBED, NULL, h, m->context_length, 1)) < 0))
		return r;
	if ((f->encdec == ENCDEC_BART || f->encdec == ENCDEC_MBART) &&
	    ((r = implied_matrix(b, "position_embd.weight", s, QUANT_EMBED, NULL, h,
					sat_add(m->context_length, 2), stacks)) < 0 ||
	     (r = config_implied_vector(b, "token_embd.norm", sat_mul(stacks, sat_mul(2, h)), s)) < 0))
		return r;
	for (uint32_t i = 0; i < m->n_layer; i++)
		if ((r = implied_stack_layer(b, m, s, i)) < 0)
			return r;
	/* The final norm of each stack: T5's a weight, Whisper's and mBART's LayerNorms; BART has none. */
	uint64_t final = t5 ? h : f->encdec == ENCDEC_BART ? 0 : sat_mul(2, h);
	if ((r = config_implied_vector(b, "output_norm.weight", sat_mul(stacks, final), s)) < 0)
		return r;
	if (!dec_layers)
		return 0;
	if ((f->encdec == ENCDEC_BART || f->encdec == ENCDEC_MBART) &&
	    (r = config_implied_vector(b, "output.final_logits_bias", s->vocab, s)) < 0)
		return r;
	if (!s->tied && (r = implied_matrix(b, "output.weight", s, QUANT_HEAD,
						   f->encdec == ENCDEC_WHISPER ? "proj_out" : "lm_head", h, s->vocab, 1)) < 0)
		return r;
	return 0;
}
