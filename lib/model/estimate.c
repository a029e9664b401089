/*
 * The estimate: each part of the memory a model needs on one GPU, as the
 * runtimes allocate it (llama.cpp for GGUF, vLLM's arithmetic for
 * safetensors), and the searches over it (longest context, layers that fit)
 * through a budget.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/quant.h"

#define MIB (1024ull * 1024)
#define GGUF_CELL_PAD 256      /* llama.cpp pads each stream's cells to this */
#define VLLM_BLOCK 16          /* vLLM's KV block, in tokens */
#define MASK_PAD 64            /* ggml's GGML_KQ_MASK_PAD */
#define DEFAULT_UBATCH 512
#define DEFAULT_MARGIN 1.1
/*
 * The most sequences a batch search tries. llama.cpp refuses more than
 * LLAMA_MAX_SEQ (256) parallel sequences ("n_seq_max must be <= 256",
 * llama-cparams.h); vLLM's "maximum concurrency" has no such limit (it is
 * the KV cache's tokens over the context), so 65536: a tiny context on a
 * large GPU gives a finite answer, and the search stays 17 probes.
 */
#define GGUF_MAX_SEQ 256
#define MAX_BATCH 65536

void hmn_fit_request_init(struct hmn_fit_request *req)
{
	memset(req, 0, sizeof(*req));
	req->dtype = HMN_DTYPE_NONE;
	req->kv_dtype = HMN_DTYPE_NONE;
	req->gpu_layers = UINT32_MAX;
}

/* The request with its defaults filled in. */
struct plan {
	uint64_t context;      /* tokens per sequence */
	uint64_t batch, ubatch, gpus;
	enum hmn_dtype kv_dtype;
	uint32_t first_layer;  /* the layers from here on are on the GPU */
	bool output;           /* the output head is too */
	bool whole;            /* everything but a GGUF's input layer is */
	bool gguf;
};

static uint64_t pad(uint64_t n, uint64_t to)
{
	return n % to ? sat_add(n, to - n % to) : n;
}

static uint64_t div_up(uint64_t n, uint64_t d)
{
	return n == HMN_UNKNOWN ? HMN_UNKNOWN : n / d + (n % d != 0);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * The cache's type when --kv-dtype is not given: llama.cpp's f16 for a
 * GGUF or a llama.cpp file type; else vLLM's "auto", the weights' float
 * type: --dtype's where it names one, else the checkpoint's, but 16 bits
 * for a float32 checkpoint loaded quantized (vLLM casts float32 to 16 bits
 * before it quantizes; a float32 cache beside int4 weights is no load).
 */
static enum hmn_dtype default_kv_dtype(const struct hmn_model *m, const struct hmn_fit_request *req)
{
	if (m->format == HMN_MODEL_GGUF || hmn_dtype_is_file_type(req->dtype) || m->float_dtype == HMN_DTYPE_NONE)
		return HMN_DTYPE_F16;
	/* --dtype fp8 is a quantized load (vLLM's --quantization fp8): its cache stays 16 bits. */
	if (req->dtype == HMN_DTYPE_F16 || req->dtype == HMN_DTYPE_BF16 || req->dtype == HMN_DTYPE_F32)
		return req->dtype;
	if (req->dtype != HMN_DTYPE_NONE && m->float_dtype == HMN_DTYPE_F32)
		return HMN_DTYPE_BF16;
	return m->float_dtype;
}

static void plan_of(const struct hmn_model *m, const struct hmn_fit_request *req, struct plan *p)
{
	p->context = req->context ? req->context : m->context_length;
	p->batch = req->batch ? req->batch : 1;
	p->ubatch = req->ubatch ? req->ubatch : DEFAULT_UBATCH;
	p->gpus = req->gpus ? req->gpus : 1;
	p->gguf = m->format == HMN_MODEL_GGUF;
	p->kv_dtype = req->kv_dtype != HMN_DTYPE_NONE ? req->kv_dtype : default_kv_dtype(m, req);
	uint32_t on_gpu = req->gpu_layers > m->n_layer ? m->n_layer : req->gpu_layers;
	p->first_layer = m->n_layer - on_gpu;
	p->output = req->gpu_layers > m->n_layer;
	p->whole = req->gpu_layers == UINT32_MAX || p->output;
}

/* ---- weights ------------------------------------------------------------------ */

static uint64_t part_weights(const struct hmn_model_layer *l, enum hmn_dtype dtype)
{
	if (dtype == HMN_DTYPE_NONE)
		return l->weights_bytes;
	return sat_add(l->vector_bytes, dtype_price(dtype, l->matrix_elements));
}

/* The tensors of one layer (or part) as quantized to file type ftype, each role's type by llama.cpp's rules. */
static uint64_t roles_weights(const struct model_quant_roles *r, enum hmn_dtype ftype, struct quant_place *q)
{
	/* 1-D tensors and the matrices llama.cpp leaves alone are f32 in a GGUF (convert_hf_to_gguf.py). */
	uint64_t kept = r->vector_elements;
	for (unsigned w = 0; w < ROWS_COUNT; w++)
		kept = sat_add(kept, r->sum[ROLE_KEPT][w].elements);
	uint64_t sum = dtype_price(HMN_DTYPE_F32, kept);
	for (unsigned role = 0; role < ROLE_KEPT; role++)
		for (unsigned w = 0; w < ROWS_COUNT; w++) {
			if (!r->sum[role][w].elements)
				continue;
			q->rows = (enum quant_rows)w;
			sum = sat_add(sum, dtype_price(model_quant_type(ftype, (enum quant_role)role, q),
						       r->sum[role][w].elements));
		}
	return sum;
}

/* How many attention-v-like and ffn_down tensors a GGUF of these roles has (experts: one 3-D tensor). */
static uint32_t role_tensors(const struct model_quant_roles *r, enum quant_role role, enum quant_role experts)
{
	uint32_t n = 0, e = 0;
	for (unsigned w = 0; w < ROWS_COUNT; w++) {
		n += r->sum[role][w].tensors;
		e += experts != role ? r->sum[experts][w].tensors : 0;
	}
	return n + (e != 0);
}

/*
 * A llama.cpp file type's weights: each layer's roles typed as
 * llama-quantize types them, in its order (tensors outside the layers,
 * then the layers by number), since some rules count the tensors of a
 * role met before (Q4_K_M's attn_v). Each part's bytes in ret_parts
 * (n_layer, then input, output, other).
 */
static void file_type_weights(const struct hmn_model *m, enum hmn_dtype ftype, uint64_t *ret_parts)
{
	uint32_t n = m->n_layer, v_total = 0, v_before = 0, down_before = 0;
	for (uint32_t i = 0; i < n + 3; i++)
		v_total += role_tensors(&m->quant_roles[i], ROLE_ATTN_V, ROLE_ATTN_V);
	for (uint32_t i = 0; i < n + 3; i++) {
		const struct model_quant_roles *r = &m->quant_roles[i];
		struct quant_place q = {
			.m = m, .layer = i < n ? (long)i : (long)n, .attn_v_index = v_before, .attn_v_count = v_total,
			.ffn_down_index = down_before,
		};
		ret_parts[i] = roles_weights(r, ftype, &q);
		v_before += role_tensors(r, ROLE_ATTN_V, ROLE_ATTN_V);
		down_before += role_tensors(r, ROLE_FFN_DOWN, ROLE_FFN_DOWN_EXPS);
	}
}

/*
 * --dtype fp8, int8 and int4 are loads, not a type every tensor is cast to:
 * the layers' matrices quantized as the common loads store them, the
 * embeddings, the head and the rest in the float type (as vLLM's fp8 and
 * GPTQ, AWQ and bitsandbytes checkpoints keep them). int4: GPTQ's layout,
 * 4 bits in int32 words, groups of 128 along the input with f16 scales and
 * packed zeros, g_idx; int8: a byte and a scale a row in the float type;
 * fp8: vLLM's dynamic quantization of a 16-bit checkpoint, a byte and one
 * float32 scale a tensor. False for any other type (GGUF's keep their own
 * block sizes).
 */
static bool quantized_load(enum hmn_dtype dtype, struct quant *ret)
{
	struct quant q = { .quantized = { [QUANT_ATTENTION] = true } };
	if (dtype == HMN_DTYPE_INT4)
		q.layout = QUANT_LAYOUT_GPTQ, q.bits = 4, q.group = 128, q.zeros = true;
	else if (dtype == HMN_DTYPE_I8)
		q.layout = QUANT_LAYOUT_INT8, q.bits = 8;
	else if (dtype == HMN_DTYPE_F8_E4M3)
		q.layout = QUANT_LAYOUT_FP8, q.bits = 8;
	else
		return false;
	*ret = q;
	return true;
}

/* The float type a quantized load keeps the rest in: the model's 16-bit one, else bf16 (vLLM's for float32). */
static enum hmn_dtype load_float(const struct hmn_model *m)
{
	return m->float_dtype == HMN_DTYPE_F16 || m->float_dtype == HMN_DTYPE_BF16 ? m->float_dtype : HMN_DTYPE_BF16;
}

/*
 * A layer at dtype; in a quantized load its matrices taken as one of the
 * model's width in (what the q, k, v, gate and up projections read; the
 * groups of the others, o and down, are as many within a few per cent).
 */
static uint64_t layer_weights(const struct hmn_model *m, const struct hmn_model_layer *l, enum hmn_dtype dtype)
{
	struct quant q;
	if (!quantized_load(dtype, &q) || !l->matrix_elements)
		return part_weights(l, dtype);
	uint64_t in = m->n_embd ? m->n_embd : 1, out = l->matrix_elements / in + (l->matrix_elements % in != 0);
	return sat_add(l->vector_bytes, quant_matrix_bytes(&q, QUANT_ATTENTION, in, out, load_float(m)));
}

uint64_t hmn_fit_weights(const struct hmn_model *m, const struct hmn_fit_request *req)
{
	struct plan p;
	plan_of(m, req, &p);
	uint64_t sum = 0;
	if (hmn_dtype_is_file_type(req->dtype) && m->quant_roles) {
		uint64_t stack[256], *parts = m->n_layer + 3 <= 256 ? stack : malloc((m->n_layer + 3) * sizeof(*parts));
		if (!parts)
			return HMN_UNKNOWN;
		file_type_weights(m, req->dtype, parts);
		for (uint32_t i = p.first_layer; i < m->n_layer; i++)
			sum = sat_add(sum, parts[i]);
		/*
		 * A llama.cpp file type is the GGUF a user would download, loaded
		 * as llama.cpp loads it whatever file it was priced from: its
		 * token_embd on the host (dev_input, below), unless tied, so that
		 * Llama-3.1-8B's config.json at Q4_K_M and the Q4_K_M GGUF agree
		 * (4,617,396,224; the config's was 4,912,898,048, token_embd's
		 * 295,501,824 of Q4_K on the GPU).
		 */
		if (p.whole) {
			sum = sat_add(sum, sat_add(parts[m->n_layer + 1], parts[m->n_layer + 2]));
			if (m->tied_embeddings)
				sum = sat_add(sum, parts[m->n_layer]);
		}
		if (parts != stack)
			free(parts);
		return div_up(sum, p.gpus);
	}
	struct quant q;
	/* Outside the layers (embeddings, head, final norm), a quantized load keeps the float type. */
	enum hmn_dtype outside = quantized_load(req->dtype, &q) ? load_float(m) : req->dtype;
	for (uint32_t i = p.first_layer; i < m->n_layer; i++)
		sum = sat_add(sum, layer_weights(m, &m->layers[i], req->dtype));
	if (p.whole) {
		sum = sat_add(sum, sat_add(part_weights(&m->output, outside), part_weights(&m->other, outside)));
		/*
		 * llama.cpp keeps a GGUF's input layer (token_embd) on the CPU
		 * whatever --gpu-layers says ("there is very little benefit to
		 * offloading the input layer", llama-model.cpp's dev_input); a
		 * tied model's output head is that matrix, duplicated onto the
		 * output's device, so it counts once, as the output.
		 */
		if (!p.gguf || m->tied_embeddings)
			sum = sat_add(sum, part_weights(&m->input, outside));
	}
	return div_up(sum, p.gpus);
}

uint64_t hmn_fit_vision(const struct hmn_model *m, const struct hmn_fit_request *req)
{
	if (req->text_only || !m->vision.weights_bytes)
		return HMN_UNKNOWN;
	struct plan p;
	plan_of(m, req, &p);
	/*
	 * Asked for a float type (bf16 for a float32 checkpoint), the tower
	 * follows; asked for a quantised one, it stays as stored: bitsandbytes,
	 * GPTQ and AWQ checkpoints leave the vision tower out of their modules,
	 * and llama.cpp's quantizer never touches the mmproj file.
	 */
	enum hmn_dtype dtype = req->dtype != HMN_DTYPE_NONE && dtype_is_float(req->dtype) ? req->dtype
											   : HMN_DTYPE_NONE;
	/*
	 * llama.cpp loads the mmproj whole on one device (clip.cpp's own
	 * backend, never split by --tensor-split): a GGUF's tower is not
	 * divided over --gpus; vLLM shards the tower with the model, but for
	 * Gemma 3n's, built as plain transformers and timm modules
	 * (gemma3n_mm.py's AutoModel.from_config): whole on every GPU.
	 */
	uint64_t bytes = part_weights(&m->vision, dtype);
	bool whole = p.gguf || (m->architecture && !strncmp(m->architecture, "gemma3n", 7));
	return whole ? bytes : div_up(bytes, p.gpus);
}

/* ---- KV cache ----------------------------------------------------------------- */

/* The cells (tokens) a layer of this kind keeps per sequence. */
static uint64_t layer_cells(const struct hmn_model *m, const struct plan *p, enum hmn_layer_kind kind)
{
	uint64_t ctx = p->context;
	if (p->gguf) {
		if (kind == HMN_LAYER_SLIDING)
			ctx = min64(ctx, sat_add(m->sliding_window, p->ubatch));
		return pad(ctx, GGUF_CELL_PAD);
	}
	if (kind == HMN_LAYER_SLIDING)
		ctx = min64(ctx, m->sliding_window);
	return pad(ctx, VLLM_BLOCK);
}

/*
 * The encoder's output a cross-attention layer keeps K and V of, per
 * sequence: Whisper's fixed length, else as long as the context (T5's and
 * BART's input), in the runtime's blocks; 0 for any other layer. Either way
 * it grows with neither the batch's sequences (each has its own) nor, for
 * Whisper, the context: the searches' bisections stay right.
 */
static uint64_t cross_cells(const struct hmn_model *m, const struct plan *p, const struct hmn_model_layer *l)
{
	if (!l->cross)
		return 0;
	return pad(m->encoder_length ? m->encoder_length : p->context, p->gguf ? GGUF_CELL_PAD : VLLM_BLOCK);
}

/*
 * What one rank of vLLM's tensor parallel holds of n heads split over
 * gpus: n / gpus, but never less than one (QKVParallelLinear's
 * num_kv_heads = max(1, total_num_kv_heads // tp_size): with fewer KV
 * heads than GPUs each is replicated, tp_size / total ranks holding it
 * whole). vLLM refuses heads that gpus does not divide (said in the
 * model's warning); rounded up then, an upper bound. 0 heads: 0.
 */
static uint64_t heads_per_rank(uint64_t n, uint64_t gpus)
{
	if (!n)
		return 0;
	return n <= gpus ? 1 : div_up(n, gpus);
}

/*
 * One layer's cache for one sequence, in bytes, on one of p->gpus GPUs. A
 * GGUF's whole (llama.cpp splits by layers, hmn_fit_kv_cache() divides the
 * sum). vLLM's tensor parallel shards by heads: each layer's own KV heads
 * per rank (heads_per_rank(): replicated when fewer than the GPUs);
 * latent attention (MLA) has no heads to shard, every rank keeps the whole
 * kv_lora_rank + rope_dim a token (vLLM's MLA backends: one latent "head",
 * never divided by tp_size).
 */
static uint64_t layer_kv(const struct hmn_model *m, const struct plan *p, const struct hmn_model_layer *l)
{
	if (l->kind == HMN_LAYER_NO_CACHE)
		return 0;
	uint64_t ranks = p->gguf ? 1 : p->gpus;
	/*
	 * Mamba's conv and SSM states (llama.cpp's n_embd_r and n_embd_s; gated
	 * DeltaNet's are sized the same way): llama.cpp keeps them in f32, vLLM
	 * in the model's type (its mamba_ssm_cache_dtype "auto"), the SSM state
	 * in f32 where the model says (Nemotron-H). Kept divided over vLLM's
	 * ranks, as vLLM shards them: MambaMixer2 splits intermediate_size
	 * (its heads) by tp_size and its groups too, each group replicated
	 * where there are fewer than the ranks (extra_groups_for_head_shards:
	 * Mamba-2's one group held on every rank); gated DeltaNet splits its
	 * K and V heads (num_k_heads / tp_size, num_v_heads / tp_size).
	 */
	uint64_t groups = m->ssm_group ? heads_per_rank(m->ssm_group, ranks) : 0;
	uint64_t inner = div_up(m->ssm_inner, ranks);
	uint64_t conv = sat_mul(m->ssm_conv ? m->ssm_conv - 1 : 0, sat_add(inner, sat_mul(2 * groups, m->ssm_state)));
	enum hmn_dtype state_type = p->gguf ? HMN_DTYPE_F32 : p->kv_dtype;
	uint64_t state = sat_add(dtype_price(state_type, conv),
				 dtype_price(m->ssm_state_f32 ? HMN_DTYPE_F32 : state_type,
					     sat_mul(m->ssm_state, inner)));
	if (l->kind == HMN_LAYER_RECURRENT)
		return state;
	if (!l->state)
		state = 0;
	uint64_t cells = layer_cells(m, p, l->kind);
	if (!p->gguf && m->kv_lora_rank)
		return sat_mul(cells, dtype_price(p->kv_dtype, (uint64_t)m->kv_lora_rank + m->rope_dim));
	/* A decoder's cross-attention keeps K and V of the encoder's output too, in the same heads. */
	cells = sat_add(cells, cross_cells(m, p, l));
	uint64_t heads = heads_per_rank(l->n_head_kv, ranks);
	uint64_t k = dtype_price(p->kv_dtype, (uint64_t)m->key_length * heads);
	uint64_t v = dtype_price(p->kv_dtype, (uint64_t)m->value_length * heads);
	return sat_add(sat_mul(cells, sat_add(k, v)), state);
}

uint64_t hmn_fit_kv_cache(const struct hmn_model *m, const struct hmn_fit_request *req)
{
	struct plan p;
	plan_of(m, req, &p);
	if (!p.context && m->n_layer)
		return HMN_UNKNOWN;
	uint64_t sum = 0;
	for (uint32_t i = p.first_layer; i < m->n_layer; i++)
		sum = sat_add(sum, layer_kv(m, &p, &m->layers[i]));
	/* vLLM's per rank already (layer_kv()); a GGUF's layers split over the GPUs as llama.cpp's --tensor-split. */
	return p.gguf ? div_up(sat_mul(sum, p.batch), p.gpus) : sat_mul(sum, p.batch);
}

/* ---- activations -------------------------------------------------------------- */

/* The cells of the longest attention layer: what one step attends over. */
static uint64_t attended(const struct hmn_model *m, const struct plan *p)
{
	uint64_t most = 0;
	for (uint32_t i = 0; i < m->n_layer; i++) {
		if (m->layers[i].kind == HMN_LAYER_ATTENTION || m->layers[i].kind == HMN_LAYER_SLIDING)
			most = most > layer_cells(m, p, m->layers[i].kind) ? most
									   : layer_cells(m, p, m->layers[i].kind);
		/* A cross-attention layer attends over the encoder's output (Whisper's 1500, past its 448 tokens). */
		most = most > cross_cells(m, p, &m->layers[i]) ? most : cross_cells(m, p, &m->layers[i]);
	}
	return most;
}

/*
 * llama.cpp's compute buffer for a step of t tokens over n_kv cells, as its
 * graph allocator sizes it: the largest of three phases, each with the
 * residual stream and its neighbours (four n_embd × t f32 tensors) live.
 * Attention: Q, K, V, the mask, and without flash attention the n_head ×
 * n_kv × t f32 scores (softmax in place). Feed-forward: gate, up and their
 * product (the experts used, for a mixture). Output: the f32 logits of every
 * token of the step. Recorded against llama.cpp itself in
 * tests/fixtures/fit/llama-cpp.tsv.
 */
static uint64_t compute_buffer(const struct hmn_model *m, const struct plan *p, bool eager)
{
	uint64_t t = min64(sat_mul(p->batch, p->context), p->ubatch);
	uint64_t n_kv = attended(m, p);
	uint64_t embd = sat_mul(sat_mul(m->n_embd, t), 4);
	uint64_t stream = sat_mul(embd, 4);
	uint64_t mask = sat_mul(sat_mul(n_kv, pad(t, MASK_PAD)), eager ? 4 : 2);

	uint64_t out = sat_add(sat_mul(sat_mul(m->n_vocab, t), 4), sat_mul(embd, eager ? 3 : 2));
	uint64_t ff = m->n_expert ? sat_add(sat_mul(m->n_ff_expert, m->n_expert_used ? m->n_expert_used : 1),
					    sat_mul(m->n_ff_expert, m->n_shared_expert))
				  : m->n_ff;
	if (m->ssm_inner)
		ff = ff > m->ssm_inner ? ff : m->ssm_inner;
	uint64_t ffn = sat_add(sat_add(sat_mul(sat_mul(3 * (uint64_t)ff, t), 4), stream), mask);
	uint64_t qkv = (uint64_t)m->n_head * m->key_length + (uint64_t)m->n_head_kv * (m->key_length +
										      m->value_length);
	uint64_t attn = sat_add(sat_add(sat_mul(sat_mul(qkv, t), 4), stream), mask);
	if (eager)
		attn = sat_add(attn, sat_mul(sat_mul(sat_mul(m->n_head, n_kv), t), 4));
	uint64_t most = out > ffn ? out : ffn;
	return most > attn ? most : attn;
}

/*
 * Korthikanti et al. 2022: a transformer layer keeps s·b·h·(34 + 5·a·s/h)
 * bytes for the backward pass in 16-bit without recomputation; a fused
 * attention kernel keeps none of the 5·a·s²·b score terms. The f32 logits
 * of every token come on top.
 */
static uint64_t training_activations(const struct hmn_model *m, const struct plan *p, bool eager)
{
	uint64_t sbh = sat_mul(sat_mul(p->context, p->batch), m->n_embd);
	uint64_t layer = sat_mul(sbh, 34);
	if (eager)
		layer = sat_add(layer, sat_mul(sat_mul(sat_mul(5, m->n_head), p->context),
					       sat_mul(p->context, p->batch)));
	uint64_t logits = sat_mul(sat_mul(sat_mul(p->context, p->batch), m->n_vocab), 4);
	return sat_add(sat_mul(layer, m->n_layer), logits);
}

/* An encoder alone (BERT, XLM-R, a T5 encoder): no head scoring the vocabulary, no layer keeping a cache. */
static bool is_encoder(const struct hmn_model *m)
{
	if (m->n_vocab || !m->n_layer)
		return false;
	for (uint32_t i = 0; i < m->n_layer; i++)
		if (m->layers[i].kind != HMN_LAYER_NO_CACHE)
			return false;
	return true;
}

/*
 * An encoder's forward pass (vLLM's pooling runner, transformers' and
 * sentence-transformers' encode) takes the batch's sequences whole, all
 * batch × context tokens in one step: no cache, no micro-batch (llama.cpp's
 * ubatch, which compute_buffer() caps the step at, has no counterpart, and
 * its non-causal attention needs a whole sequence in one anyway). A layer at
 * a time holds the residual stream and the normed input (2 × tokens × width),
 * then the larger of its attention (Q, K, V and the output, and with eager
 * attention the heads × context² scores and their softmax a sequence:
 * hmn_attention_bytes()) and its feed-forward (gate, up and their product,
 * 3 × tokens × intermediate; a plain FFN holds two, so an upper bound by a
 * third of that phase), in the model's float type (as the weights are priced).
 * These are the tensors of Korthikanti et al.'s per-layer count (the one
 * training_activations() keeps for every layer), held for one layer at a
 * time as inference frees each after the next reads it. BERT-base (768
 * wide, 3072 intermediate, 12 heads) at 32 sequences of 512 tokens in 16
 * bits: 336 MiB fused, 528 MiB eager (the 2 × 32 × 12 × 512² scores and
 * softmax, 384 MiB, in place of the feed-forward's 288); not checked against
 * a measurement (none found published).
 */
static uint64_t encoder_activations(const struct hmn_model *m, const struct plan *p, enum hmn_dtype type,
				    bool eager)
{
	uint64_t tokens = sat_mul(p->batch, p->context);
	uint32_t bytes = dtype_price(type, 1) ? (uint32_t)dtype_price(type, 1) : 2;
	uint64_t stream = sat_mul(sat_mul(2, tokens), m->n_embd);
	/* An encoder keeps no cache, so its KV heads may read as 0: K and V are then as many as Q's. */
	uint64_t attn = hmn_attention_bytes(p->batch, p->context, p->context, m->n_head,
					    m->n_head_kv ? m->n_head_kv : m->n_head, m->key_length, bytes, eager);
	uint64_t ffn = sat_mul(sat_mul(sat_mul(3, tokens), m->n_ff), bytes);
	/*
	 * Under tensor parallelism each GPU holds the whole residual stream and
	 * its normed copy; only the heads' and the feed-forward's intermediates
	 * are split. Per GPU, already divided.
	 */
	return sat_add(sat_mul(stream, bytes), div_up(attn > ffn ? attn : ffn, p->gpus));
}

uint64_t hmn_fit_activations(const struct hmn_model *m, const struct hmn_fit_request *req)
{
	struct plan p;
	plan_of(m, req, &p);
	if (!p.context)
		return HMN_UNKNOWN;
	if (!req->train && !p.gguf && is_encoder(m))
		return encoder_activations(m, &p, req->dtype != HMN_DTYPE_NONE && dtype_is_float(req->dtype) ? req->dtype
					   : dtype_is_float(m->float_dtype) ? m->float_dtype : HMN_DTYPE_BF16,
					   req->eager_attention);
	uint64_t a = req->train ? training_activations(m, &p, req->eager_attention)
				: compute_buffer(m, &p, req->eager_attention);
	return div_up(a, p.gpus);
}

uint64_t hmn_attention_bytes(uint64_t batch, uint64_t seq, uint64_t kv_len, uint32_t heads,
			     uint32_t kv_heads, uint32_t head_dim, uint32_t elem_bytes, bool eager)
{
	uint64_t q = sat_mul(sat_mul(sat_mul(batch, seq), heads), head_dim);
	uint64_t kv = sat_mul(sat_mul(sat_mul(sat_mul(batch, kv_len), kv_heads), head_dim), 2);
	uint64_t sum = sat_add(sat_mul(q, 2), kv); /* Q and the output, K and V */
	if (eager) /* the scores and their softmax, heads × seq × kv_len each */
		sum = sat_add(sum, sat_mul(sat_mul(sat_mul(sat_mul(batch, heads), seq), kv_len), 2));
	return sat_mul(sum, elem_bytes);
}

/* ---- optimizer, runtime -------------------------------------------------------- */

uint64_t hmn_fit_optimizer(uint64_t parameters, enum hmn_dtype dtype)
{
	uint32_t block, bytes;
	if (hmn_dtype_block(dtype, &block, &bytes) < 0 || block != 1)
		bytes = 2; /* quantised weights train through 16-bit copies */
	uint64_t per = (uint64_t)bytes /* gradients */ + (bytes < 4 ? 4 : 0) /* master weights */ + 8;
	return sat_mul(parameters, per);
}

static const struct {
	const char *vendor;
	uint64_t bytes;
} runtimes[] = {
	/* The CUDA context and its libraries: ~518 MiB measured on an H100 (driver 580, CUDA 12). */
	{ "nvidia", 512 * MIB },
	/* Not measured by hmn: HIP, Level Zero and Metal are taken to cost what CUDA does. */
	{ "amd", 512 * MIB },
	{ "intel", 512 * MIB },
	{ "apple", 512 * MIB },
};

uint64_t hmn_fit_runtime(const char *vendor)
{
	for (size_t i = 0; vendor && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strcmp(vendor, runtimes[i].vendor))
			return runtimes[i].bytes;
	return runtimes[0].bytes;
}

/* ---- the whole estimate, the budget, the searches ---------------------------------- */

int hmn_fit_estimate(const struct hmn_model *m, const struct hmn_fit_request *req,
		     struct hmn_fit_parts *ret_parts)
{
	struct plan p;
	plan_of(m, req, &p);
	if (!p.context)
		return -EINVAL; /* no trained context known, and none asked for */
	if (req->dtype != HMN_DTYPE_NONE && !hmn_dtype_name(req->dtype))
		return -EINVAL;
	if (!hmn_dtype_name(p.kv_dtype))
		return -EINVAL;
	/* --text-only trains the text model alone: the tower is neither loaded nor given optimizer state. */
	uint64_t trained = req->text_only && m->vision_parameters <= m->parameters ? m->parameters - m->vision_parameters
										  : m->parameters;
	struct hmn_fit_parts parts = {
		.weights = hmn_fit_weights(m, req),
		.vision = hmn_fit_vision(m, req),
		/* Training runs whole sequences: no cache, its K and V are in the activations. */
		.kv_cache = req->train ? 0 : hmn_fit_kv_cache(m, req),
		.activations = hmn_fit_activations(m, req),
		.optimizer = req->train ? div_up(hmn_fit_optimizer(trained, req->dtype != HMN_DTYPE_NONE
									    ? req->dtype : m->dtype), p.gpus)
					: HMN_UNKNOWN,
		.runtime = hmn_fit_runtime(req->vendor),
		.context = p.gguf ? pad(p.context, GGUF_CELL_PAD) : p.context,
		.kv_dtype = p.kv_dtype,
	};
	uint64_t sum = sat_add(sat_add(parts.weights, parts.kv_cache), sat_add(parts.activations, parts.runtime));
	if (parts.vision != HMN_UNKNOWN)
		sum = sat_add(sum, parts.vision);
	if (req->train)
		sum = sat_add(sum, parts.optimizer);
	if (sum == HMN_UNKNOWN)
		return -EOVERFLOW;
	struct hmn_budget b;
	hmn_budget_init(&b, HMN_UNKNOWN, req->margin > 0 ? req->margin : DEFAULT_MARGIN);
	b.current = sum;
	parts.total = hmn_budget_charged(&b);
	if (parts.total == UINT64_MAX)
		return -EOVERFLOW;
	parts.margin = parts.total - sum;
	*ret_parts = parts;
	return 0;
}

int hmn_fit_reserve(struct hmn_budget *budget, const struct hmn_model *m,
		    const struct hmn_fit_request *req, const char **ret_part)
{
	struct hmn_fit_parts parts;
	int r = hmn_fit_estimate(m, req, &parts);
	if (r < 0)
		return r;
	const struct {
		const char *name;
		uint64_t bytes;
	} order[] = {
		{ "weights", parts.weights },
		{ "vision", parts.vision != HMN_UNKNOWN ? parts.vision : 0 },
		{ "kv_cache", parts.kv_cache },
		{ "activations", parts.activations },
		{ "optimizer", req->train ? parts.optimizer : 0 },
		{ "runtime", parts.runtime },
	};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (hmn_budget_reserve(budget, order[i].bytes) < 0) {
			if (ret_part)
				*ret_part = order[i].name;
			return -ENOSPC;
		}
	return 0;
}

int hmn_fit_fits(const struct hmn_model *m, const struct hmn_fit_request *req, uint64_t limit)
{
	struct hmn_budget b;
	hmn_budget_init(&b, limit, req->margin > 0 ? req->margin : DEFAULT_MARGIN);
	int r = hmn_fit_reserve(&b, m, req, NULL);
	return r == -ENOSPC ? 0 : r < 0 ? r : 1;
}

/* What a search varies: the context in steps, the GGUF layers on the GPU, or the sequences. */
enum search_of { SEARCH_CONTEXT, SEARCH_LAYERS, SEARCH_BATCH };
struct search {
	const struct hmn_model *m;
	struct hmn_fit_request req;
	uint64_t limit, step, cap;
	enum search_of of;
};

/* Does the k-th candidate fit? 1, 0, or a negative errno. */
static int candidate_fits(struct search *s, uint64_t k)
{
	switch (s->of) {
	case SEARCH_LAYERS:
		s->req.gpu_layers = (uint32_t)k;
		break;
	case SEARCH_BATCH:
		s->req.batch = (uint32_t)k;
		break;
	case SEARCH_CONTEXT:
		s->req.context = min64(k * s->step, s->cap);
		break;
	}
	return hmn_fit_fits(s->m, &s->req, s->limit);
}

/* The largest k in [0, hi] that fits (0 is taken to), as the estimate only grows with k. */
static int largest_fitting(struct search *s, uint64_t hi, uint64_t *ret_k)
{
	uint64_t lo = 0;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		int f = candidate_fits(s, mid);
		if (f < 0)
			return f;
		if (f)
			lo = mid;
		else
			hi = mid - 1;
	}
	*ret_k = lo;
	return 0;
}

int hmn_fit_max_context(const struct hmn_model *m, const struct hmn_fit_request *req,
			uint64_t limit, uint64_t *ret_context)
{
	struct search s = { m, *req, limit, m->format == HMN_MODEL_GGUF ? GGUF_CELL_PAD : VLLM_BLOCK,
			    req->context ? req->context : m->context_length, SEARCH_CONTEXT };
	uint64_t k;
	if (!s.cap)
		return -EINVAL;
	/* The largest k in [1, steps] whose context min(k × step, cap) fits. */
	int r = largest_fitting(&s, div_up(s.cap, s.step), &k);
	if (r < 0)
		return r;
	if (!k)
		return -ENOSPC;
	*ret_context = min64(k * s.step, s.cap);
	return 0;
}

int hmn_fit_gpu_layers(const struct hmn_model *m, const struct hmn_fit_request *req,
		       uint64_t limit, uint32_t *ret_layers)
{
	if (m->format != HMN_MODEL_GGUF)
		return -ENOTSUP;
	struct search s = { m, *req, limit, 0, 0, SEARCH_LAYERS };
	uint64_t k;
	int r = largest_fitting(&s, (uint64_t)m->n_layer + 1, &k);
	if (r < 0)
		return r;
	*ret_layers = (uint32_t)k;
	return 0;
}

/*
 * The search is a bisection, right because every part only grows with the
 * batch b: the weights, the runtime and the optimizer do not depend on it,
 * the KV cache is b times one sequence's, the compute buffer's step is
 * min(b x context, ubatch) tokens with every phase growing in it (the cells
 * attended are one sequence's), an encoder's forward pass and training's
 * activations are b times one sequence's; the margin is a factor on their sum, and the budget takes
 * them in a fixed order, so a b that fits leaves room for every smaller one.
 */
int hmn_fit_max_batch(const struct hmn_model *m, const struct hmn_fit_request *req,
		      uint64_t limit, uint32_t *ret_batch)
{
	struct search s = { m, *req, limit, 0, 0, SEARCH_BATCH };
	uint64_t k;
	if (!req->context && !m->context_length)
		return -EINVAL;
	int r = largest_fitting(&s, m->format == HMN_MODEL_GGUF ? GGUF_MAX_SEQ : MAX_BATCH, &k);
	if (r < 0)
		return r;
	*ret_batch = (uint32_t)k;
	return 0;
}
