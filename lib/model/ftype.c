/*
 * llama.cpp's file types (Q4_K_M, IQ4_XS, Q8_0 ...): which ggml type
 * llama-quantize gives each tensor, so that --dtype Q4_K_M prices the GGUF
 * a user would download. The rules are llama.cpp's src/llama-quant.cpp
 * (llama_tensor_get_type_impl, tensor_type_fallback,
 * llama_ftype_get_default_type, tensor_requires_imatrix) as of the
 * llama.cpp that node-llama-cpp 3.22.1 bundles in tools/llama (commit
 * de3ff81, September 2026), read again, not copied.
 *
 * Where a rule depends on an importance matrix, an imatrix is assumed
 * where llama-quantize refuses to work without one (IQ1_*, IQ2_*, IQ3_XXS,
 * IQ3_XS, Q2_K_S) and not elsewhere: IQ4_XS and IQ4_NL without one give
 * the first eighth of ffn_down Q5_K, as llama-quantize does by default.
 */
#include <string.h>

#include "model/model.h"

/* ---- the rules ------------------------------------------------------------------ */

static bool ftype_is(enum hmn_dtype ftype, const enum hmn_dtype *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == ftype)
			return true;
	return false;
}
#define IS(ftype, ...) \
	ftype_is(ftype, (const enum hmn_dtype[]){ __VA_ARGS__ }, \
		 sizeof((const enum hmn_dtype[]){ __VA_ARGS__ }) / sizeof(enum hmn_dtype))

/* llama-quant.cpp's use_more_bits(): the first and last eighth of the layers, and every third between. */
static bool use_more_bits(long i, long n)
{
	return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* The file types llama-quantize refuses to make without an importance matrix (tensor_requires_imatrix). */
static bool has_imatrix(enum hmn_dtype ftype)
{
	return IS(ftype, HMN_DTYPE_FILE_IQ1_S, HMN_DTYPE_FILE_IQ1_M, HMN_DTYPE_FILE_IQ2_XXS, HMN_DTYPE_FILE_IQ2_XS,
		  HMN_DTYPE_FILE_IQ2_S, HMN_DTYPE_FILE_IQ2_M, HMN_DTYPE_FILE_IQ3_XXS, HMN_DTYPE_FILE_IQ3_XS,
		  HMN_DTYPE_FILE_Q2_K_S);
}

static uint32_t block_of(enum hmn_dtype t)
{
	uint32_t elements = 1;
	hmn_dtype_block(t, &elements, NULL);
	return elements;
}

/* tensor_type_fallback(): a row that is not whole blocks of t takes a type of 32-element blocks, else f16. */
static enum hmn_dtype fallback(enum hmn_dtype t, enum quant_rows rows)
{
	uint32_t block = block_of(t);
	if (rows == ROWS_256 || block == 1)
		return t;
	if (rows == ROWS_ODD)
		return HMN_DTYPE_F16;
	if (block <= 32)
		return t;
	switch (t) {
	case HMN_DTYPE_IQ1_S: case HMN_DTYPE_IQ1_M: case HMN_DTYPE_IQ2_XXS: case HMN_DTYPE_IQ2_XS:
	case HMN_DTYPE_IQ2_S: case HMN_DTYPE_IQ3_XXS: case HMN_DTYPE_IQ3_S: case HMN_DTYPE_IQ4_XS:
		return HMN_DTYPE_IQ4_NL;
	case HMN_DTYPE_Q2_K: case HMN_DTYPE_Q3_K: case HMN_DTYPE_TQ1_0: case HMN_DTYPE_TQ2_0:
		return HMN_DTYPE_Q4_0;
	case HMN_DTYPE_Q4_K:
		return HMN_DTYPE_Q5_0;
	case HMN_DTYPE_Q5_K:
		return HMN_DTYPE_Q5_1;
	case HMN_DTYPE_Q6_K:
		return HMN_DTYPE_Q8_0;
	default:
		return HMN_DTYPE_F16;
	}
}

static bool arch_is(const struct hmn_model *m, const char *name)
{
	return m->architecture && !strcmp(m->architecture, name);
}

/* llama.cpp's LLM_TYPE_70B, whose attn_v gets Q5_K for Q3_K and Q4_K (src/models/{llama,qwen2,olmo,deci,jais2}.cpp). */
static bool is_70b(const struct hmn_model *m)
{
	if (arch_is(m, "llama"))
		return m->n_layer == 80 && m->n_head != m->n_head_kv;
	if (arch_is(m, "qwen2") || arch_is(m, "olmo") || arch_is(m, "deci"))
		return m->n_layer == 80;
	return arch_is(m, "jais2") && m->n_layer == 68;
}

static uint32_t n_gqa(const struct hmn_model *m)
{
	uint32_t kv = m->n_layer ? m->layers[0].n_head_kv : m->n_head_kv;
	return kv ? m->n_head / kv : 0;
}

#define F(x) HMN_DTYPE_FILE_##x
#define T(x) HMN_DTYPE_##x

static enum hmn_dtype rules(enum hmn_dtype ft, enum quant_role role, const struct quant_place *q, enum hmn_dtype t)
{
	const struct hmn_model *m = q->m;
	bool falcon = arch_is(m, "falcon"), imatrix = has_imatrix(ft);
	uint32_t gqa = n_gqa(m), n_expert = m->n_expert;
	long n_layer = m->n_layer;
	bool down = role == ROLE_FFN_DOWN || role == ROLE_FFN_DOWN_EXPS;
	bool gate_up = role == ROLE_FFN_GATE || role == ROLE_FFN_GATE_EXPS || role == ROLE_FFN_UP ||
		       role == ROLE_FFN_UP_EXPS;
	/* A mixture's ffn_down is placed by its layer's number; a dense model's by the count before it. */
	long i_layer = n_expert > 1 ? q->layer : down ? (long)q->ffn_down_index : q->layer;

	if (role == ROLE_OUTPUT || (m->tied_embeddings && role == ROLE_TOKEN_EMBD)) {
		uint32_t block = block_of(t);
		bool whole = q->rows == ROWS_256 || (q->rows == ROWS_32 && block <= 32);
		if (ft == F(MXFP4_MOE) || falcon || !whole)
			return T(Q8_0);
		if (IS(ft, F(IQ2_XXS), F(IQ2_XS), F(IQ3_XXS), F(IQ1_S), F(IQ2_S), F(IQ2_M), F(IQ1_M)))
			return T(Q5_K);
		return t != T(Q8_0) ? T(Q6_K) : t;
	}
	if (ft == F(MXFP4_MOE))
		return role == ROLE_FFN_UP_EXPS || role == ROLE_FFN_GATE_EXPS || role == ROLE_FFN_DOWN_EXPS ? T(MXFP4)
														 : T(Q8_0);
	if (role == ROLE_TOKEN_EMBD) {
		if (IS(ft, F(IQ2_XXS), F(IQ2_XS), F(IQ1_S), F(IQ1_M)))
			return T(Q2_K);
		if (IS(ft, F(IQ2_S), F(IQ2_M), F(IQ3_XXS)))
			return T(IQ3_S);
		if (IS(ft, F(TQ1_0), F(TQ2_0)))
			return T(Q4_K);
		return t;
	}
	if (IS(ft, F(IQ2_XXS), F(IQ2_XS), F(IQ1_S), F(IQ2_S), F(IQ2_M), F(IQ1_M))) {
		bool s_or_m = IS(ft, F(IQ2_S), F(IQ2_M));
		if (role == ROLE_ATTN_V)
			return gqa >= 4 || n_expert >= 4 ? T(Q4_K) : s_or_m ? T(IQ3_S) : T(Q2_K);
		if (n_expert == 8 && role == ROLE_ATTN_K)
			return T(Q4_K);
		if (down)
			return (long)q->ffn_down_index < n_layer / 8 ? (s_or_m ? T(IQ3_S) : T(Q2_K)) : t;
		if (role == ROLE_ATTN_OUTPUT) {
			if (n_expert == 8)
				return T(Q5_K);
			if (IS(ft, F(IQ1_S), F(IQ1_M)))
				return T(IQ2_XXS);
			return s_or_m ? T(IQ3_S) : t;
		}
		return t;
	}
	if (role == ROLE_ATTN_V) {
		if (ft == F(Q2_K))
			t = gqa >= 4 ? T(Q4_K) : T(Q3_K);
		else if (ft == F(Q2_K_S) && gqa >= 4)
			t = T(Q4_K);
		else if (ft == F(IQ3_XXS))
			t = gqa >= 4 ? T(Q4_K) : !imatrix ? T(IQ3_S) : T(IQ3_XXS);
		else if (IS(ft, F(IQ3_XS), F(IQ3_S)) && gqa >= 4)
			t = T(Q4_K);
		else if (ft == F(IQ3_M))
			t = T(Q4_K);
		else if (ft == F(Q3_K_M))
			t = q->attn_v_index < 2 ? T(Q5_K) : T(Q4_K);
		else if (ft == F(Q3_K_L))
			t = T(Q5_K);
		else if (IS(ft, F(IQ4_NL), F(IQ4_XS)) && gqa >= 4)
			t = T(Q5_K);
		else if (IS(ft, F(Q4_K_M), F(Q5_K_M)) && use_more_bits(q->attn_v_index, q->attn_v_count))
			t = T(Q6_K);
		else if (ft == F(Q4_K_S) && q->attn_v_index < 4)
			t = T(Q5_K);
		/* 70B: its attn_v is 8 times smaller than attn_q, so more bits cost little. */
		if (is_70b(m) && (t == T(Q3_K) || t == T(Q4_K)))
			t = T(Q5_K);
		return n_expert == 8 ? T(Q8_0) : t;
	}
	if (role == ROLE_ATTN_K) {
		if (n_expert == 8)
			return T(Q8_0);
		return ft == F(IQ3_XS) ? T(IQ3_XXS) : ft == F(IQ3_XXS) ? T(IQ2_S) : t;
	}
	if (role == ROLE_ATTN_Q)
		return ft == F(IQ3_XS) ? T(IQ3_XXS) : ft == F(IQ3_XXS) ? T(IQ2_S) : t;
	if (down) {
		long i = i_layer, n = n_layer;
		if (ft == F(Q2_K))
			return T(Q3_K);
		if (ft == F(Q2_K_S))
			return i < n / 8 ? T(Q4_K) : t;
		if (ft == F(IQ3_XXS) && !imatrix)
			return i < n / 8 ? T(Q4_K) : T(Q3_K);
		if (ft == F(Q3_K_M))
			return i < n / 16 ? T(Q5_K) : !falcon || use_more_bits(i, n) ? T(Q4_K) : T(Q3_K);
		if (ft == F(IQ3_M) && (i < n / 8 || (n_expert == 8 && use_more_bits(i, n))))
			return T(Q4_K);
		if (ft == F(Q3_K_L))
			return falcon ? T(Q4_K) : T(Q5_K);
		if (ft == F(Q4_K_M)) {
			if (falcon)
				return i < n / 16 ? T(Q6_K) : use_more_bits(i, n) ? T(Q5_K) : T(Q4_K);
			return use_more_bits(i, n) ? T(Q6_K) : t;
		}
		if (i < n / 8 && IS(ft, F(IQ4_NL), F(IQ4_XS)) && !imatrix)
			return T(Q5_K);
		if (ft == F(Q5_K_M) && use_more_bits(i, n))
			return T(Q6_K);
		if (ft == F(Q4_K_S) && !falcon && i < n / 8)
			return T(Q5_K);
		if (IS(ft, F(Q4_0), F(Q5_0)) && imatrix && i < n / 8)
			return ft == F(Q4_0) ? T(Q4_1) : T(Q5_1);
		return t;
	}
	if (role == ROLE_ATTN_OUTPUT) {
		if (falcon)
			return ft == F(Q3_K_L) ? T(Q4_K) : t;
		if (n_expert == 8)
			return IS(ft, F(Q2_K), F(IQ3_XS), F(IQ3_XXS), F(Q3_K_S), F(Q3_K_M), F(IQ4_NL), F(Q4_K_S), F(Q4_K_M),
				  F(IQ3_S), F(IQ3_M), F(IQ4_XS)) ? T(Q5_K) : t;
		if (ft == F(Q2_K))
			return T(Q3_K);
		if (ft == F(IQ3_XXS))
			return T(IQ3_S);
		if (IS(ft, F(Q3_K_M), F(IQ3_M)))
			return T(Q4_K);
		return ft == F(Q3_K_L) ? T(Q5_K) : t;
	}
	/* attn_qkv is attention-v-like above: llama-quant.cpp's own branch for it is never reached. */
	if (gate_up && ft == F(IQ3_XS) && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8)
		return T(IQ3_XXS);
	return t;
}

/*
 * Experts stored in MXFP4 (gpt-oss's checkpoints) stay MXFP4 in every
 * GGUF made of them: convert_hf_to_gguf.py repacks them as they are, even
 * for --outtype f16, and each published quantization of gpt-oss keeps
 * them (its Q8_0 and its MXFP4 files are within 1%: 12.1 GB for the 20B);
 * the file type sets the type of the rest.
 */
static bool experts_kept_mxfp4(enum quant_role role, const struct quant_place *q)
{
	bool experts = role == ROLE_FFN_UP_EXPS || role == ROLE_FFN_GATE_EXPS || role == ROLE_FFN_DOWN_EXPS;
	return experts && q->m->quantization && !strcmp(q->m->quantization, "mxfp4");
}

enum hmn_dtype model_quant_type(enum hmn_dtype ftype, enum quant_role role, const struct quant_place *q)
{
	enum hmn_dtype base = dtype_file_type_base(ftype);
	if (base == HMN_DTYPE_NONE || role == ROLE_KEPT)
		return HMN_DTYPE_NONE;
	if (experts_kept_mxfp4(role, q))
		return HMN_DTYPE_MXFP4;
	return fallback(rules(ftype, role, q, base), q->rows);
}
