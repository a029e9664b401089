/* A model as its headers describe it: the tensors' sums, by layer, and what each layer keeps. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "os/os.h"
#include "util/number.h"

int model_fail(struct model_error *e, int r, const char *fmt, ...)
{
	if (e && e->buf && e->size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->buf, e->size, fmt, ap);
		va_end(ap);
		/*
		 * What it names came from the files (keys, tensor and file names,
		 * paths): the whole line made printable, the end of a character
		 * that vsnprintf() cut included, so a caller may print it as it is.
		 */
		printable_name(e->buf, e->buf, e->size);
	}
	return r;
}

/* ---- what a reader says of a model: its warning, its layers' kinds ------------------ */

/* *said, then text after it ("first; text"), into m's arena; cut at 512 bytes. */
static void add_said(struct hmn_model *m, const char **said, const char *text)
{
	char w[512];
	if (*said && **said)
		snprintf(w, sizeof(w), "%s; %s", *said, text);
	else
		snprintf(w, sizeof(w), "%s", text);
	*said = arena_strdup(m->arena, w);
}

void model_add_warning(struct hmn_model *m, const char *text)
{
	add_said(m, &m->warning, text);
}

void model_add_note(struct hmn_model *m, const char *text)
{
	add_said(m, &m->note, text);
}

static bool is_lfs_pointer(const struct reader *r)
{
	static const char spec[] = "version https://git-lfs.github.com/spec/";
	char head[sizeof(spec) - 1];
	return r->size >= sizeof(head) && r->size <= 1024 && r->read_at(r->userdata, 0, head, sizeof(head)) >= 0 &&
	       memcmp(head, spec, sizeof(head)) == 0;
}

bool model_path_is_lfs_pointer(const char *path)
{
	struct reader r;
	if (os_file_open(path, &r) < 0)
		return false;
	bool is = is_lfs_pointer(&r);
	os_file_close(&r);
	return is;
}

int model_fail_if_lfs_pointer(const struct reader *r, struct model_error *e)
{
	if (!is_lfs_pointer(r))
		return 0;
	return model_fail(e, -EINVAL, "%s: a Git LFS pointer, not the weights: they were not downloaded "
			  "(git lfs pull, or hf download)", r->name);
}

bool hmn_model_warn_context(struct hmn_model *m, uint64_t context)
{
	uint64_t limit = m->context_limit ? m->context_limit : m->context_length;
	char w[200];
	if (!limit || context <= limit)
		return false;
	if (m->learned_positions)
		snprintf(w, sizeof(w), "context %" PRIu64 " is beyond its %" PRIu64 " positions, a learned table: "
			 "it cannot attend past them; estimated as asked", context, limit);
	else if (limit != m->context_length)
		snprintf(w, sizeof(w), "context %" PRIu64 " is beyond its %" PRIu64 " trained tokens, %" PRIu64
			 " with its rope scaling: estimated as asked", context, m->context_length, limit);
	else
		snprintf(w, sizeof(w), "context %" PRIu64 " is beyond its %" PRIu64 " trained tokens: estimated as asked",
			 context, limit);
	model_add_warning(m, w);
	return true;
}

bool hmn_model_warn_split(struct hmn_model *m, uint32_t gpus)
{
	char w[200];
	if (gpus <= 1 || m->format == HMN_MODEL_GGUF || !m->n_head || m->n_head % gpus == 0)
		return false;
	/* vLLM: "Total number of attention heads (64) must be divisible by tensor parallel size (3)." */
	snprintf(w, sizeof(w), "--gpus %" PRIu32 " does not divide its %" PRIu32 " attention heads: vLLM refuses that"
		 " tensor-parallel size; estimated as asked", gpus, m->n_head);
	model_add_warning(m, w);
	return true;
}

void model_warn_unknown_architecture(struct hmn_model *m, const char *what, const char *weights_from)
{
	char w[300];
	snprintf(w, sizeof(w), "%s '%s' is not one hmn knows: the weights are exact, from %s; the KV cache "
		 "and activations are an upper bound: every layer full attention", what, m->architecture, weights_from);
	model_add_warning(m, w);
}

void model_set_layer_kinds(struct hmn_model *m, bool recurrent, uint32_t swa_pattern, const bool *swa_layers,
			   size_t n_swa_layers)
{
	for (uint32_t i = 0; i < m->n_layer; i++) {
		struct hmn_model_layer *l = &m->layers[i];
		bool slides = false;
		if (m->sliding_window) {
			if (swa_layers && i < n_swa_layers)
				slides = swa_layers[i];
			else if (swa_pattern)
				slides = i % swa_pattern < swa_pattern - 1;
			else
				slides = !swa_layers; /* a window without a pattern: every layer */
		}
		if (recurrent || (m->ssm_state && l->n_head_kv == 0))
			l->kind = HMN_LAYER_RECURRENT;
		else if (l->n_head_kv == 0 && !m->kv_lora_rank)
			l->kind = HMN_LAYER_NO_CACHE;
		else
			l->kind = slides ? HMN_LAYER_SLIDING : HMN_LAYER_ATTENTION;
	}
}

/* ---- the rules a shape holds together by -------------------------------------- */

int model_check_kv_heads(const struct shape_names *n, uint64_t heads, uint64_t kv_heads, long layer,
			 struct model_error *e)
{
	if (!kv_heads || (heads && heads % kv_heads == 0))
		return 0;
	char where[32] = "";
	if (layer >= 0)
		snprintf(where, sizeof(where), " in layer %ld", layer);
	return model_fail(e, -EINVAL, "%s: %s%s: %" PRIu64 " does not divide %s%s, %" PRIu64 "%s", n->file,
			  n->prefix, n->kv_heads, kv_heads, n->prefix, n->heads, heads, where);
}

int model_check_heads_split(const struct shape_names *n, uint64_t heads, uint64_t width, bool head_dim_said,
			    bool latent, struct model_error *e)
{
	if (head_dim_said || latent || !heads || width % heads == 0)
		return 0;
	return model_fail(e, -EINVAL, "%s: %s%s: %" PRIu64 " does not divide %s%s, %" PRIu64
			  ", and there is no %s%s", n->file, n->prefix, n->heads, heads, n->prefix, n->width,
			  width, n->prefix, n->head_dim);
}

int model_check_experts(const struct shape_names *n, uint64_t experts, uint64_t used, struct model_error *e)
{
	if (!experts || used <= experts)
		return 0;
	return model_fail(e, -EINVAL, "%s: %s%s: %" PRIu64 " is more than the %" PRIu64 " experts", n->file,
			  n->prefix, n->experts_used, used, experts);
}

/* ---- building a model from its tensors ---------------------------------------- */

int model_build_start(struct model_build *b, struct hmn_model **ret_model)
{
	memset(b, 0, sizeof(*b));
	b->m = calloc(1, sizeof(*b->m));
	if (!b->m || !(b->m->arena = arena_new())) {
		free(b->m);
		return -ENOMEM;
	}
	b->m->dtype = HMN_DTYPE_NONE;
	b->m->float_dtype = HMN_DTYPE_NONE;
	if (ret_model)
		*ret_model = b->m;
	return 0;
}

void model_build_abort(struct model_build *b)
{
	free(b->names);
	b->names = NULL;
	free(b->layers);
	b->layers = NULL;
	free(b->roles);
	b->roles = NULL;
	b->m = hmn_model_free(b->m);
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);
	return n >= p && !memcmp(s, prefix, p);
}

/*
 * A table's prefix or suffix with its length, for the tables every tensor's
 * name is tried against: the byte at the far end of the affix compared
 * first (a name's byte there is rarely the affix's '.'), then memcmp().
 */
struct affix {
	const char *text;
	size_t len;
};
#define AFFIX(s) { s, sizeof(s) - 1 }

static bool starts_with(const char *s, size_t n, const struct affix *a)
{
	if (n < a->len || (a->len && s[a->len - 1] != a->text[a->len - 1]))
		return false;
	/* "model.la" is not "model.vi": eight bytes at once before memcmp() is called */
	if (a->len >= 8) {
		uint64_t x, y;
		memcpy(&x, s, 8);
		memcpy(&y, a->text, 8);
		if (x != y)
			return false;
	}
	return !memcmp(s, a->text, a->len);
}

static bool ends_with(const char *s, size_t n, const struct affix *a)
{
	return n >= a->len && (!a->len || s[n - a->len] == a->text[0]) && !memcmp(s + n - a->len, a->text, a->len);
}

/*
 * memchr() to each place the needle's first byte is, memcmp() there alone:
 * a memcmp() at each byte of each name was 82% of reading DeepSeek-V3 when
 * model_quant_role() looked for its forty needles this way.
 */
static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	if (!k)
		return true;
	const char *at = s, *last = s + (n - k);
	while (at <= last && (at = memchr(at, needle[0], (size_t)(last - at) + 1))) {
		if (!memcmp(at + 1, needle + 1, k - 1))
			return true;
		at++;
	}
	return false;
}

/*
 * The layer a tensor's name places it in: GGUF's "blk.N.", safetensors'
 * "layers.N.", "h.N.", "blocks.N." anywhere in the name. -1 for none (or a
 * number past the bound). N is 9 digits at most: a longer run is no layer
 * number, and the search goes on past it; a number past the bound ends it.
 */
long model_layer_of(const char *name, size_t n)
{
	static const struct affix marks[] = {
		AFFIX("blk."), AFFIX("layers."), AFFIX("h."), AFFIX("blocks."), AFFIX("layer."),
	};
	const char *end = name + n;
	for (size_t i = 0; i < n; i++) {
		if (i && name[i - 1] != '.')
			continue;
		for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
			size_t len = marks[k].len;
			if (n - i <= len || name[i] != marks[k].text[0] || memcmp(name + i, marks[k].text, len))
				continue;
			const char *p = name + i + len;
			uint64_t v;
			if (parse_decimal(&p, end - p < 9 ? end : p + 9, UINT64_MAX, &v) && (p == end || *p == '.'))
				return v < MODEL_MAX_LAYERS ? (long)v : -1;
		}
	}
	return -1;
}

enum tensor_place { PLACE_OTHER, PLACE_INPUT, PLACE_OUTPUT };

static enum tensor_place place_of(const char *s, size_t n)
{
	if (starts(s, n, "token_embd.") || contains(s, n, "embed_tokens.") || contains(s, n, "wte.") ||
	    contains(s, n, "embed_in.") || contains(s, n, "word_embeddings.") ||
	    starts(s, n, "backbone.embeddings."))
		return PLACE_INPUT;
	if (starts(s, n, "output.") || starts(s, n, "output_norm.") || starts(s, n, "lm_head.") ||
	    starts(s, n, "embed_out.") || starts(s, n, "model.norm.") || contains(s, n, "ln_f.") ||
	    contains(s, n, "final_layer_norm.") || contains(s, n, "norm_f.") ||
	    starts(s, n, "language_model.lm_head.") || starts(s, n, "language_model.model.norm."))
		return PLACE_OUTPUT;
	return PLACE_OTHER;
}

/*
 * A vision-language model's image tower and projector, by the names each
 * family's checkpoint gives them (their model.safetensors.index.json):
 * LLaVA, Gemma 3, Mistral 3 (vision_tower., multi_modal_projector.; the
 * newer transformers' layout under model.), Llama 3.2 Vision
 * (vision_model.), Qwen2-VL and its successors (visual., model.visual.),
 * MiniCPM-V (vpm., resampler.), Molmo (model.vision_backbone.), Qwen-VL
 * (transformer.visual.), the original LLaVA's mm_projector, Idefics 3
 * (model.connector.), InternVL (mlp1.), Phi-3-vision
 * (model.vision_embed_tokens.), Fuyu (vision_embed_tokens.: adept/fuyu-8b's
 * patch projection, top level), Mistral's own consolidated.safetensors
 * (vision_encoder., vision_language_adapter., patch_merger.,
 * pre_mm_projector_norm.: vLLM's pixtral.py loads them by these), Gemma 3n's
 * audio tower and its embedders (model.audio_tower., model.embed_audio.,
 * model.embed_vision.: the vision part holds every tower). Read
 * before the layers: Qwen2-VL's visual.blocks.N. are the tower's, not the
 * text model's layer N.
 */
bool model_is_vision_tensor(const char *s, size_t n)
{
	static const struct affix prefixes[] = {
		AFFIX("vision_tower."), AFFIX("vision_model."), AFFIX("visual."), AFFIX("multi_modal_projector."),
		AFFIX("vpm."), AFFIX("resampler."), AFFIX("transformer.visual."), AFFIX("mm_projector."),
		AFFIX("mlp1."), AFFIX("vision_encoder."), AFFIX("vision_language_adapter."), AFFIX("patch_merger."),
		AFFIX("pre_mm_projector_norm."), AFFIX("vision_embed_tokens."), /* Fuyu's, saved before transformers 4.52 */
	};
	/* The same under "model.": the newer transformers' layout, Molmo's, Idefics 3's, Phi-3-vision's, Gemma 3n's. */
	static const struct affix under_model[] = {
		AFFIX("vision_tower."), AFFIX("vision_model."), AFFIX("visual."), AFFIX("multi_modal_projector."),
		AFFIX("vision_backbone."), AFFIX("mm_projector."), AFFIX("connector."), AFFIX("vision_embed_tokens."),
		AFFIX("audio_tower."), AFFIX("embed_vision."), AFFIX("embed_audio."), /* Gemma 3n's */
	};
	const struct affix *list = prefixes;
	size_t count = sizeof(prefixes) / sizeof(prefixes[0]);
	/*
	 * Most names start "model.layers." (none of the first list starts
	 * "model."): one compare of "model." and of the byte after it, not 21
	 * prefixes each (a third of reading DeepSeek-V3's index alone).
	 */
	if (n > 6 && !memcmp(s, "model.", 6)) {
		s += 6;
		n -= 6;
		list = under_model;
		count = sizeof(under_model) / sizeof(under_model[0]);
	}
	for (size_t i = 0; n && i < count; i++)
		if (s[0] == list[i].text[0] && starts_with(s, n, &list[i]))
			return true;
	return false;
}

/*
 * A GGUF model file that carries its own tower (Ollama's gemma3,
 * llama3.2-vision and mistral-small3.1, one file where llama.cpp has an
 * mmproj beside): llama.cpp's clip names, v.blk.N. (not the text model's
 * blk.N.), v.patch_embd, mm.* for the projector.
 */
static bool is_gguf_vision_tensor(const struct model_build *b, const char *s, size_t n)
{
	return b->m->format == HMN_MODEL_GGUF && (starts(s, n, "v.") || starts(s, n, "mm."));
}

static bool is_output_head(const char *s, size_t n)
{
	return starts(s, n, "output.weight") || starts(s, n, "lm_head.") || starts(s, n, "embed_out.") ||
	       starts(s, n, "language_model.lm_head.");
}

/*
 * Sums cannot overflow: the weights' total, checked first, is at least each
 * of them. A quantization's scales and zeros (aux) are neither matrix nor
 * vector: --dtype prices the weights they belong to afresh.
 */
static void layer_add(struct hmn_model_layer *l, uint64_t bytes, uint64_t matrix, bool aux)
{
	l->weights_bytes += bytes;
	l->matrix_elements += matrix;
	if (!matrix && !aux)
		l->vector_bytes += bytes;
}

static bool ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

/*
 * What model_quant_role() looks for in a name, one bit each: a name is read
 * once for all of them, a switch on a byte choosing the few that can be
 * there (some forty needles, each looked for through the whole name, were
 * 3,400 instructions a name and a third of hmn fit on DeepSeek-R1's
 * config.json).
 */
enum role_mark {
	MARK_KEPT = 1 << 0,    /* a matrix the converter writes in f32 */
	MARK_ATTN_V = 1 << 1,
	MARK_ATTN_K = 1 << 2,
	MARK_ATTN_Q = 1 << 3,
	MARK_ATTN_OUTPUT = 1 << 4,
	MARK_FFN_UP = 1 << 5,
	MARK_FFN_GATE = 1 << 6,
	MARK_FFN_DOWN = 1 << 7,
	MARK_EXPERTS = 1 << 8, /* a mixture's experts, in GGUF's or Hugging Face's names */
};

/*
 * Is word in s (n bytes) with its byte number anchor at s[at]? The mark if
 * so, else 0. word is a literal: memcmp() of a known length is a compare or two.
 */
#define WORD_AT(s, n, at, anchor, word, mark)                                                              \
	((at) + 1 > (anchor) && (n) - ((at) - (anchor)) >= sizeof(word) - 1 &&                            \
			 !memcmp((s) + (at) - (anchor), word, sizeof(word) - 1) ? (mark) : 0)
/* Do s's first end bytes end with module? */
#define MODULE(s, end, module, mark) WORD_AT(s, end, (end) - 1, sizeof(module) - 2, module, mark)

/*
 * The modules each role is known by where ".weight" follows them, by their
 * last byte; s[end] is the '.' of a ".weight" (at the name's end in every
 * checkpoint's, but any one counts).
 */
static unsigned module_marks(const char *s, size_t end)
{
	switch (end ? s[end - 1] : 0) {
	case 'm':
		return MODULE(s, end, "norm", MARK_KEPT);
	case 'p':
		return MODULE(s, end, "ffn_gate_inp", MARK_KEPT);
	case 'd':
		return MODULE(s, end, "ffn_gate_tid2eid", MARK_KEPT) | MODULE(s, end, "conv1d", MARK_KEPT);
	case 'b':
		return MODULE(s, end, "attn_rel_b", MARK_KEPT) | MODULE(s, end, "attn_kv_b", MARK_ATTN_V);
	case 'e':
		return MODULE(s, end, "wpe", MARK_KEPT) | MODULE(s, end, ".mlp.gate", MARK_KEPT) |
		       MODULE(s, end, "block_sparse_moe.gate", MARK_KEPT) |
		       MODULE(s, end, "shared_expert_gate", MARK_KEPT) |
		       MODULE(s, end, "query_key_value", MARK_ATTN_V) |
		       MODULE(s, end, "self_attn.dense", MARK_ATTN_OUTPUT) |
		       MODULE(s, end, "attention.dense", MARK_ATTN_OUTPUT);
	case 'r':
		return MODULE(s, end, ".mlp.router", MARK_KEPT);
	case 'v':
		return MODULE(s, end, "shortconv.conv", MARK_KEPT) | MODULE(s, end, "attn_qkv", MARK_ATTN_V) |
		       MODULE(s, end, "attn_v", MARK_ATTN_V);
	case 'n':
		return MODULE(s, end, "attn.c_attn", MARK_ATTN_V);
	case 'k':
		return MODULE(s, end, "attn_k", MARK_ATTN_K);
	case 'q':
		return MODULE(s, end, "attn_q", MARK_ATTN_Q);
	case 't':
		return MODULE(s, end, "attn_output", MARK_ATTN_OUTPUT);
	case 'c':
		return MODULE(s, end, "mlp.c_fc", MARK_FFN_UP);
	case 'h':
		return MODULE(s, end, "dense_h_to_4h", MARK_FFN_UP) | MODULE(s, end, "dense_4h_to_h", MARK_FFN_DOWN);
	case '1':
		return MODULE(s, end, "mlp.fc1", MARK_FFN_UP);
	case '2':
		return MODULE(s, end, "mlp.fc2", MARK_FFN_DOWN);
	case 'j':
		return MODULE(s, end, "indexer.k_proj", MARK_KEPT) | MODULE(s, end, "indexer.q_proj", MARK_KEPT) |
		       MODULE(s, end, "qkv_proj", MARK_ATTN_V) | MODULE(s, end, "v_proj", MARK_ATTN_V) |
		       MODULE(s, end, "self_attn.k_proj", MARK_ATTN_K) |
		       MODULE(s, end, "self_attn.q_proj", MARK_ATTN_Q) |
		       MODULE(s, end, "self_attn.o_proj", MARK_ATTN_OUTPUT) |
		       MODULE(s, end, "self_attn.out_proj", MARK_ATTN_OUTPUT) |
		       MODULE(s, end, "attn.c_proj", MARK_ATTN_OUTPUT) | MODULE(s, end, "up_proj", MARK_FFN_UP) |
		       MODULE(s, end, "gate_proj", MARK_FFN_GATE) | MODULE(s, end, "down_proj", MARK_FFN_DOWN) |
		       MODULE(s, end, "mlp.c_proj", MARK_FFN_DOWN);
	default:
		return 0;
	}
}

/* The words that count wherever they are and have an underscore, by the byte after it: s[at] is a '_'. */
static unsigned underscore_marks(const char *s, size_t n, size_t at)
{
	switch (at + 1 < n ? s[at + 1] : 0) {
	case 'e':
		return WORD_AT(s, n, at, 0, "_exps", MARK_EXPERTS) | WORD_AT(s, n, at, 8, "position_embd", MARK_KEPT) |
		       WORD_AT(s, n, at, 3, "pos_embd", MARK_KEPT) |
		       WORD_AT(s, n, at, 8, "position_embeddings", MARK_KEPT);
	case 'u':
		return WORD_AT(s, n, at, 3, "ffn_up", MARK_FFN_UP);
	case 'g':
		return WORD_AT(s, n, at, 3, "ffn_gate", MARK_FFN_GATE);
	case 'd':
		return WORD_AT(s, n, at, 3, "ffn_down", MARK_FFN_DOWN);
	case 'l':
		return WORD_AT(s, n, at, 3, "per_layer_model_proj", MARK_KEPT);
	case 't':
		return WORD_AT(s, n, at, 5, "token_types", MARK_KEPT);
	case 'c':
		return WORD_AT(s, n, at, 3, "ssm_conv1d", MARK_KEPT);
	case 'm':
		return WORD_AT(s, n, at, 4, "time_mix_", MARK_KEPT);
	case 'p':
		return WORD_AT(s, n, at, 5, "embed_positions", MARK_KEPT);
	default:
		return 0;
	}
}

/*
 * Every mark of s's (n bytes): the modules before each ".weight", the words
 * anywhere, each looked for where its rarest byte is (an underscore, a 'u',
 * an 'x': 'a', 'l' and '.' are in every name, some many times).
 */
static unsigned role_marks(const char *s, size_t n)
{
	const char *end = s + n;
	unsigned marks = 0;
	for (const char *p = s; (p = memchr(p, 'w', (size_t)(end - p))); p++)
		if (p > s && p[-1] == '.' && (size_t)(end - p) >= 6 && !memcmp(p, "weight", 6))
			marks |= module_marks(s, (size_t)(p - 1 - s));
	for (const char *p = s; (p = memchr(p, '_', (size_t)(end - p))); p++)
		marks |= underscore_marks(s, n, (size_t)(p - s));
	for (const char *p = s; (p = memchr(p, 'u', (size_t)(end - p))); p++)
		marks |= WORD_AT(s, n, (size_t)(p - s), 3, "altup", MARK_KEPT) |
			 WORD_AT(s, n, (size_t)(p - s), 2, "laurel", MARK_KEPT);
	for (const char *p = s; (p = memchr(p, 'x', (size_t)(end - p))); p++)
		marks |= WORD_AT(s, n, (size_t)(p - s), 2, ".experts.", MARK_EXPERTS);
	return marks;
}

/*
 * llama-quant.cpp's tensor_get_category() and tensor_allows_quantization()
 * on GGUF's names, and the same roles for the Hugging Face names that
 * convert_hf_to_gguf.py maps to them (Llama's q_proj is attn_q, Falcon's
 * query_key_value and GPT-2's c_attn are attn_qkv, Mixtral's experts.N.w2
 * is part of ffn_down_exps). DeepSeek's kv_b_proj is split by the
 * converter into attn_k_b and attn_v_b, which no rule singles out.
 */
enum quant_role model_quant_role(const char *s, size_t n, size_t n_dims)
{
	if (n_dims < 2)
		return ROLE_KEPT;
	if ((n == 13 && starts(s, n, "output.weight")) || ends(s, n, "lm_head.weight") || ends(s, n, "embed_out.weight"))
		return ROLE_OUTPUT;
	if ((n == 17 && starts(s, n, "token_embd.weight")) || starts(s, n, "per_layer_token_embd.weight") ||
	    ends(s, n, "embed_tokens.weight") || ends(s, n, "wte.weight") || ends(s, n, "embed_in.weight") ||
	    ends(s, n, "word_embeddings.weight"))
		return ROLE_TOKEN_EMBD;
	if (!ends(s, n, "weight")) {
		/* gpt-oss's experts, 3-D tensors without a .weight (ffn_gate_up_exps and ffn_down_exps in a GGUF). */
		if ((ends(s, n, "gate_up_proj") || ends(s, n, "gate_up_proj_blocks")) && contains(s, n, ".experts."))
			return ROLE_FFN_UP_EXPS;
		if ((ends(s, n, "down_proj") || ends(s, n, "down_proj_blocks")) && contains(s, n, ".experts."))
			return ROLE_FFN_DOWN_EXPS;
		/* What it never quantizes (the converter writes them in f32). */
		return ROLE_KEPT;
	}
	unsigned marks = role_marks(s, n);
	if (marks & MARK_KEPT)
		return ROLE_KEPT;
	if (marks & MARK_ATTN_V)
		return ROLE_ATTN_V;
	if (marks & MARK_ATTN_K)
		return ROLE_ATTN_K;
	if (marks & MARK_ATTN_Q)
		return ROLE_ATTN_Q;
	if (marks & MARK_ATTN_OUTPUT)
		return ROLE_ATTN_OUTPUT;
	bool experts = marks & MARK_EXPERTS;
	if ((marks & MARK_FFN_UP) || (experts && ends(s, n, ".w3.weight")))
		return experts ? ROLE_FFN_UP_EXPS : ROLE_FFN_UP;
	if ((marks & MARK_FFN_GATE) || (experts && ends(s, n, ".w1.weight")))
		return experts ? ROLE_FFN_GATE_EXPS : ROLE_FFN_GATE;
	if ((marks & MARK_FFN_DOWN) || (experts && ends(s, n, ".w2.weight")))
		return experts ? ROLE_FFN_DOWN_EXPS : ROLE_FFN_DOWN;
	return ROLE_MATRIX;
}

static void roles_add(struct model_quant_roles *q, const char *name, size_t name_len, const uint64_t *dims,
		      size_t n_dims, bool torch_order, uint64_t elements)
{
	if (n_dims < 2) {
		q->vector_elements += elements;
		return;
	}
	uint64_t row = torch_order ? dims[n_dims - 1] : dims[0];
	enum quant_rows rows = row % 256 == 0 ? ROWS_256 : row % 32 == 0 ? ROWS_32 : ROWS_ODD;
	struct quant_sum *sum = &q->sum[model_quant_role(name, name_len, n_dims)][rows];
	sum->elements += elements;
	sum->tensors++;
}

/* What quantized checkpoints store beside their weights: no parameters of the model. */
static bool is_quant_aux(const char *s, size_t n, enum hmn_dtype dtype)
{
	static const struct affix suffixes[] = {
		/* GPTQ, AWQ, MLX */
		AFFIX(".qzeros"), AFFIX(".scales"), AFFIX(".g_idx"), AFFIX(".biases"),
		/* bitsandbytes */
		AFFIX(".absmax"), AFFIX(".quant_map"), AFFIX(".nested_absmax"), AFFIX(".nested_quant_map"),
		AFFIX(".SCB"), AFFIX(".weight_format"),
		AFFIX(".quant_state.bitsandbytes__nf4"), AFFIX(".quant_state.bitsandbytes__fp4"),
		/* fp8, ModelOpt, compressed-tensors */
		AFFIX(".weight_scale"), AFFIX(".weight_scale_inv"), AFFIX(".weight_scale_2"),
		AFFIX(".input_scale"), AFFIX(".k_scale"), AFFIX(".v_scale"),
		AFFIX(".weight_zero_point"), AFFIX(".weight_shape"), AFFIX(".weight_g_idx"),
		AFFIX(".weight_global_scale"), AFFIX(".input_global_scale"),
		/* EXL2 */
		AFFIX(".q_scale"), AFFIX(".q_scale_max"), AFFIX(".q_groups"), AFFIX(".q_perm"), AFFIX(".q_invperm"),
	};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with(s, n, &suffixes[i]))
			return true;
	/* MXFP4's e8m0 scales beside its blocks (gate_up_proj_scales) */
	return dtype == HMN_DTYPE_U8 && ends(s, n, "_scales");
}

/*
 * The model's parameters a tensor holds: its elements, but for packed
 * quantized weights (two 4-bit weights a byte: bitsandbytes' and NVFP4's
 * uint8 weight, MXFP4's blocks; int32/uint32 words: counted in
 * b->packed_words, at 4 bits until the config says) and the scales and
 * zeros beside them (none).
 */
static uint64_t tensor_parameters(struct model_build *b, const char *s, size_t n, enum hmn_dtype dtype,
				  uint64_t elements, bool *ret_aux)
{
	*ret_aux = false;
	if (is_quant_aux(s, n, dtype)) {
		*ret_aux = true;
		return 0;
	}
	if ((dtype == HMN_DTYPE_I32 && (ends(s, n, ".qweight") || ends(s, n, ".weight_packed") || ends(s, n, ".q_weight"))) ||
	    (dtype == HMN_DTYPE_U32 && ends(s, n, ".weight"))) {
		b->packed_words = sat_add(b->packed_words, elements);
		return sat_mul(elements, 8);
	}
	if (dtype == HMN_DTYPE_U8 && (ends(s, n, ".weight") || ends(s, n, "_blocks") || ends(s, n, ".weight_packed")))
		return sat_mul(elements, 2);
	return elements;
}

void model_build_packed_bits(struct model_build *b, unsigned bits)
{
	if (!bits || bits == 4 || !b->packed_words)
		return;
	/* 32/bits weights a word: 3 bits pack 32 weights in 3 words */
	uint64_t at4 = sat_mul(b->packed_words, 8), now = sat_mul(b->packed_words, 32) / bits;
	if (at4 == HMN_UNKNOWN || now == HMN_UNKNOWN / bits || b->parameters < at4)
		return;
	b->parameters = sat_add(b->parameters - at4, now);
	b->packed_words = 0;
}

static int add_name(struct model_build *b, const char *name, size_t len)
{
	size_t need = b->names_len + len + 1;
	if (need > b->names_capacity) {
		size_t cap = b->names_capacity ? b->names_capacity : 4096;
		while (cap < need)
			cap *= 2;
		char *p = realloc(b->names, cap);
		if (!p)
			return -ENOMEM;
		b->names = p;
		b->names_capacity = cap;
	}
	memcpy(b->names + b->names_len, name, len);
	b->names[need - 1] = '\0';
	b->names_len = need;
	return 0;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* FNV-1a: names differ in their digits, deep inside ("model.layers.12.mlp.experts.45."). */
static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return h;
}

/*
 * Could any name of b's be there twice? A set of their offsets in b->names, open
 * addressing at a load of a half at most: linear, where sorting 91,991
 * names that share their first 30 bytes took more strcmp() than any other
 * part of reading DeepSeek-V3. -ENOMEM when there is no room for it.
 */
static int names_repeat(const struct model_build *b, size_t n, bool *ret_repeat)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slots = calloc(cap, sizeof(*slots)); /* offset + 1; 0 is empty */
	if (!slots)
		return -ENOMEM;
	*ret_repeat = false;
	for (size_t at = 0, k = 0; at < b->names_len && k < n && !*ret_repeat; k++) {
		const char *name = b->names + at;
		size_t len = strlen(name);
		/* A long run of probes (names made to collide) is said as a repeat: the sort then tells. */
		for (size_t i = name_hash(name, len) & (cap - 1), probes = 0;; i = (i + 1) & (cap - 1), probes++) {
			if (!slots[i]) {
				slots[i] = at + 1;
				break;
			}
			if (probes == 64 || !strcmp(b->names + slots[i] - 1, name)) {
				*ret_repeat = true;
				break;
			}
		}
		at += len + 1;
	}
	free(slots);
	return 0;
}

int model_build_check_names(struct model_build *b, const char *where, struct model_error *e)
{
	size_t n = b->m->n_tensors;
	bool repeat;
	if (n < 2)
		return 0;
	/* None twice (all but hostile files): no sort. One is: sorted, to name the first in order as always. */
	int r = names_repeat(b, n, &repeat);
	if (r < 0 || !repeat)
		return r;
	const char **sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	size_t k = 0;
	for (size_t at = 0; at < b->names_len && k < n; at += strlen(b->names + at) + 1)
		sorted[k++] = b->names + at;
	qsort(sorted, k, sizeof(*sorted), compare_strings);
	for (size_t i = 1; i < k && r == 0; i++)
		if (!strcmp(sorted[i - 1], sorted[i])) {
			char name[72];
			printable_name(sorted[i], name, sizeof(name));
			r = model_fail(e, -EINVAL, "%s: tensor '%s' is named twice: the file is broken or hostile",
				       where, name);
		}
	free(sorted);
	return r;
}

int model_build_check_parameters(const struct model_build *b, const char *where, struct model_error *e)
{
	if (b->m->n_tensors && !b->parameters)
		return model_fail(e, -EINVAL, "%s: its %zu tensor%s no parameters (each has a dimension of 0):"
				  " no weights to price", where, b->m->n_tensors,
				  b->m->n_tensors == 1 ? " holds" : "s hold");
	return 0;
}

int model_build_tensor(struct model_build *b, const char *name, size_t name_len,
		       enum hmn_dtype dtype, const uint64_t *dims, size_t n_dims, uint64_t bytes)
{
	struct hmn_model *m = b->m;
	uint64_t elements = 1;
	for (size_t i = 0; i < n_dims; i++)
		if (mul_overflows(elements, dims[i], &elements))
			return -EOVERFLOW;
	bool aux;
	uint64_t params = tensor_parameters(b, name, name_len, dtype, elements, &aux);
	if (params == HMN_UNKNOWN)
		return -EOVERFLOW;
	uint64_t matrix = n_dims >= 2 ? params : 0;
	if (++m->n_tensors > MODEL_MAX_TENSORS)
		return -EFBIG;
	if (add_overflows(m->weights_bytes, bytes, &m->weights_bytes) ||
	    add_overflows(b->parameters, params, &b->parameters))
		return -EOVERFLOW;
	if ((unsigned)dtype < sizeof(b->bytes_by_dtype) / sizeof(b->bytes_by_dtype[0]))
		b->bytes_by_dtype[dtype] = sat_add(b->bytes_by_dtype[dtype], bytes);
	if (is_output_head(name, name_len))
		b->saw_output_head = true;
	if (add_name(b, name, name_len) < 0)
		return -ENOMEM;

	if (b->all_vision || model_is_vision_tensor(name, name_len) || is_gguf_vision_tensor(b, name, name_len)) {
		layer_add(&m->vision, bytes, matrix, aux);
		b->vision_parameters += params; /* at most parameters, checked above */
		return 0;
	}
	long layer = model_layer_of(name, name_len);
	if (layer >= 0) {
		if ((size_t)layer >= b->n_layers_seen) {
			size_t want = (size_t)layer + 1;
			if (want > b->layers_capacity) {
				size_t cap = b->layers_capacity ? b->layers_capacity : 64;
				while (cap < want)
					cap *= 2;
				struct hmn_model_layer *p = realloc(b->layers, cap * sizeof(*p));
				if (!p)
					return -ENOMEM;
				memset(p + b->layers_capacity, 0, (cap - b->layers_capacity) * sizeof(*p));
				b->layers = p;
				struct model_quant_roles *q = realloc(b->roles, cap * sizeof(*q));
				if (!q)
					return -ENOMEM;
				memset(q + b->layers_capacity, 0, (cap - b->layers_capacity) * sizeof(*q));
				b->roles = q;
				b->layers_capacity = cap;
			}
			b->n_layers_seen = want;
		}
		layer_add(&b->layers[layer], bytes, matrix, aux);
		if (!aux)
			roles_add(&b->roles[layer], name, name_len, dims, n_dims, b->torch_order, params);
		return 0;
	}
	struct hmn_model_layer *part = &m->other;
	struct model_quant_roles *roles = &b->parts[2];
	switch (place_of(name, name_len)) {
	case PLACE_INPUT: part = &m->input; roles = &b->parts[0]; break;
	case PLACE_OUTPUT: part = &m->output; roles = &b->parts[1]; break;
	default: break;
	}
	layer_add(part, bytes, matrix, aux);
	if (!aux)
		roles_add(roles, name, name_len, dims, n_dims, b->torch_order, params);
	return 0;
}

int model_build_finish(struct model_build *b, struct model_error *e)
{
	struct hmn_model *m = b->m;

	m->parameters = b->parameters;
	m->vision_parameters = b->vision_parameters;
	m->tied_embeddings = m->n_tensors && !b->saw_output_head;
	/* The type most of the bytes are in, and the float type beside it. */
	uint64_t best = 0, best_float = 0;
	enum hmn_dtype float_dtype = HMN_DTYPE_NONE;
	for (unsigned t = 0; t < sizeof(b->bytes_by_dtype) / sizeof(b->bytes_by_dtype[0]); t++) {
		if (b->bytes_by_dtype[t] > best) {
			best = b->bytes_by_dtype[t];
			m->dtype = (enum hmn_dtype)t;
		}
		if (b->bytes_by_dtype[t] > best_float && dtype_is_float((enum hmn_dtype)t) &&
		    t != HMN_DTYPE_F32) {
			best_float = b->bytes_by_dtype[t];
			float_dtype = (enum hmn_dtype)t;
		}
	}
	/* config.json's torch_dtype, when it said one, stands (DeepSeek-V3: fp8 weights, bf16 compute). */
	if (m->float_dtype == HMN_DTYPE_NONE)
		m->float_dtype = float_dtype;
	if (m->float_dtype == HMN_DTYPE_NONE)
		m->float_dtype = m->dtype != HMN_DTYPE_NONE && dtype_is_float(m->dtype) ? m->dtype
											: HMN_DTYPE_F16;
	if (!m->n_layer)
		m->n_layer = (uint32_t)b->n_layers_seen;
	if (m->n_layer > MODEL_MAX_LAYERS)
		return model_fail(e, -EINVAL, "%s: %u layers, more than %u", m->path ? m->path : "model",
				  m->n_layer, MODEL_MAX_LAYERS);
	m->layers = calloc(m->n_layer ? m->n_layer : 1, sizeof(*m->layers));
	if (!m->layers)
		return -ENOMEM;
	size_t n = b->n_layers_seen < m->n_layer ? b->n_layers_seen : m->n_layer;
	if (n)
		memcpy(m->layers, b->layers, n * sizeof(*m->layers));
	/* Tensors of layers past the count (a next-token-prediction block) count as other. */
	for (size_t i = n; i < b->n_layers_seen; i++) {
		m->other.weights_bytes += b->layers[i].weights_bytes;
		m->other.matrix_elements += b->layers[i].matrix_elements;
		m->other.vector_bytes += b->layers[i].vector_bytes;
	}
	/* Each layer's roles, then the input's, the output's and the rest's (layers past the count among them). */
	m->quant_roles = calloc((size_t)m->n_layer + 3, sizeof(*m->quant_roles));
	if (!m->quant_roles)
		return -ENOMEM;
	if (n)
		memcpy(m->quant_roles, b->roles, n * sizeof(*m->quant_roles));
	memcpy(m->quant_roles + m->n_layer, b->parts, sizeof(b->parts));
	struct model_quant_roles *other = &m->quant_roles[m->n_layer + 2];
	for (size_t i = n; i < b->n_layers_seen; i++) {
		for (unsigned r = 0; r < ROLE_COUNT; r++)
			for (unsigned w = 0; w < ROWS_COUNT; w++) {
				other->sum[r][w].elements += b->roles[i].sum[r][w].elements;
				other->sum[r][w].tensors += b->roles[i].sum[r][w].tensors;
			}
		other->vector_elements += b->roles[i].vector_elements;
	}
	free(b->layers);
	b->layers = NULL;
	free(b->roles);
	b->roles = NULL;
	free(b->names);
	b->names = NULL;
	for (uint32_t i = 0; i < m->n_layer; i++)
		m->layers[i].n_head_kv = m->n_head_kv;
	return 0;
}

struct hmn_model *hmn_model_free(struct hmn_model *model)
{
	if (!model)
		return NULL;
	free(model->layers);
	free(model->quant_roles);
	arena_free(model->arena);
	free(model);
	return NULL;
}
