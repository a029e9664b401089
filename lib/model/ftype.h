/*
 * lib/model: llama.cpp's file types (model/ftype.c). What its quantizer
 * tells apart in a model's tensors, as model.c's builder sums them a layer
 * at a time, and the ggml type it gives each. Needs the public types and
 * model/dtype.h alone.
 */
#ifndef HMN_MODEL_FTYPE_H
#define HMN_MODEL_FTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "hmn-model.h"

/*
 * What llama.cpp's quantizer tells apart in a tensor (llama-quant.cpp's
 * tensor_category, split by what its rules ask: experts' 3-D tensors apart,
 * the 2-D tensors it never quantizes apart).
 */
enum quant_role {
	ROLE_TOKEN_EMBD, ROLE_OUTPUT,
	ROLE_ATTN_Q, ROLE_ATTN_K,
	ROLE_ATTN_V,        /* attn_v, attn_qkv, attn_kv_b: "attention-v-like" */
	ROLE_ATTN_OUTPUT,
	ROLE_FFN_UP, ROLE_FFN_GATE, ROLE_FFN_DOWN,
	ROLE_FFN_UP_EXPS, ROLE_FFN_GATE_EXPS, ROLE_FFN_DOWN_EXPS, /* a mixture's experts */
	ROLE_MATRIX,        /* any other matrix it quantizes */
	ROLE_KEPT,          /* a matrix it leaves in f32: a router, position embeddings, a conv1d */
	ROLE_COUNT
};
/* A row's width against the block sizes (ggml's types hold whole blocks a row: 256 or 32). */
enum quant_rows { ROWS_256, ROWS_32, ROWS_ODD, ROWS_COUNT };
struct quant_sum {
	uint64_t elements;
	uint32_t tensors;
};
/* One layer's (or part's) tensors by role and row width. */
struct model_quant_roles {
	struct quant_sum sum[ROLE_COUNT][ROWS_COUNT];
	uint64_t vector_elements;       /* 1-D tensors: GGUF keeps them in f32 */
};
/* The role llama.cpp's quantizer gives a tensor named s (n bytes; GGUF's or Hugging Face's names), of n_dims. */
enum quant_role model_quant_role(const char *s, size_t n, size_t n_dims);
/*
 * The ggml type llama.cpp's quantizer gives a tensor of a role in file
 * type ftype, the rest of what its rules ask said in q; HMN_DTYPE_NONE for
 * a type it leaves as it is (KEPT).
 */
struct quant_place {
	const struct hmn_model *m;
	long layer;             /* the tensor's layer (ffn_down of a mixture), n_layer past them */
	uint32_t attn_v_index;  /* attention-v-like tensors before it (qs.i_attention_wv) */
	uint32_t attn_v_count;  /* and in the model (qs.n_attention_wv) */
	uint32_t ffn_down_index; /* ffn_down tensors before it (qs.i_ffn_down) */
	enum quant_rows rows;
};
enum hmn_dtype model_quant_type(enum hmn_dtype ftype, enum quant_role role, const struct quant_place *q);

#endif
