/*
 * A checkpoint's quantization, from its own description, and each matrix's
 * bytes in it: the packed weights and everything stored beside them (scales,
 * zero points, group indices), so that a config.json alone is priced as its
 * download is. Each format is read as the code that writes it lays it out:
 *
 *   bitsandbytes 4-bit (transformers' Params4bit): two weights a byte, a
 *     float32 absmax per 64 (with double quantization a byte per 64 and a
 *     float32 per 256 of those), a 16-entry code book; 8-bit: int8 and a
 *     float32 scale per output row (SCB). The head stays in the float type.
 *   GPTQ (AutoGPTQ, GPTQModel): qweight int32 [in x bits / 32, out], qzeros
 *     int32 [groups, out x bits / 32], scales f16 [groups, out], g_idx int32
 *     [in] (written whether or not desc_act reorders); group_size -1 is one
 *     group. Embeddings, head, routers and vision towers stay in the float type.
 *   AWQ (AutoAWQ): qweight int32 [in, out x bits / 32], qzeros and f16 scales
 *     per group; as GPTQ without g_idx.
 *   FP8 (transformers' finegrained fp8, DeepSeek-V3, Qwen3 FP8): a byte a
 *     weight and a float32 scale_inv per weight_block_size block; without a
 *     block size, one float32 scale per tensor.
 *   compressed-tensors (llm-compressor): its config_groups' weights (int
 *     packed into int32 words with scales per group or channel, float 8-bit
 *     with a scale per channel or tensor, float 4-bit as NVFP4), ignore.
 *   MXFP4 (gpt-oss): the experts alone, 16 bytes and an e8m0 scale per 32.
 *   MLX: uint32 words, a scale and a bias per group in the float type, the
 *     embeddings and head included.
 *   ModelOpt (hf_quant_config.json): FP8 (a float32 scale per tensor),
 *     NVFP4 (an fp8 scale per 16, float32 global scales), W4A16_AWQ.
 *   EXL2: a mean number of bits a weight, head_bits for the head.
 *
 * modules_to_not_convert, llm_int8_skip_modules, ignore and exclude_modules
 * name modules left in the float type: a name that says attention, a
 * router, the embeddings, the head, the MLP or a vision tower keeps that
 * class in it (a name of one layer's module alone is too small to count).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/quant.h"

/* Bounds: a group or block past the widest matrix is hostile. */
#define QUANT_MAX_GROUP MODEL_MAX_WIDTH

struct qctx {
	const char *file;
	const char *where;     /* "quantization_config." */
	struct model_error *e;
};

static int q_fail_value(const struct qctx *c, const char *key, const cJSON *v, const char *what)
{
	char shown[64];
	if (cJSON_IsNumber(v)) {
		snprintf(shown, sizeof(shown), "%.15g", v->valuedouble);
	} else if (cJSON_IsString(v)) {
		char s[40];
		printable_name(v->valuestring, s, sizeof(s));
		snprintf(shown, sizeof(shown), "the string \"%s\"", s);
	} else {
		snprintf(shown, sizeof(shown), "%s", cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? "true" : "false") :
			 cJSON_IsNull(v) ? "null" : cJSON_IsArray(v) ? "an array" : "an object");
	}
	return model_fail(c->e, -EINVAL, "%s: %s%s: %s %s", c->file, c->where, key, shown, what);
}

/* A whole number in [min, max] (or one of allowed[], ended by 0), else fallback when absent or null. */
static int q_number(const struct qctx *c, const cJSON *obj, const char *key, int64_t min, int64_t max,
		    int64_t fallback, int64_t *ret_value)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v || cJSON_IsNull(v)) {
		*ret_value = fallback;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return q_fail_value(c, key, v, "is not a number");
	double d = v->valuedouble;
	if (!(d >= (double)min && d <= (double)max) || d != floor(d)) {
		char what[96];
		snprintf(what, sizeof(what), "is not a whole number from %" PRId64 " to %" PRId64, min, max);
		return q_fail_value(c, key, v, what);
	}
	*ret_value = (int64_t)d;
	return 0;
}

static int q_missing(const struct qctx *c, const char *key)
{
	return model_fail(c->e, -EINVAL, "%s: %s%s is missing", c->file, c->where, key);
}

static int q_flag(const struct qctx *c, const cJSON *obj, const char *key, bool fallback, bool *ret_value)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v || cJSON_IsNull(v)) {
		*ret_value = fallback;
		return 0;
	}
	if (!cJSON_IsBool(v))
		return q_fail_value(c, key, v, "is not true or false");
	*ret_value = cJSON_IsTrue(v);
	return 0;
}

/* A string, or NULL when absent or null; anything else is malformed. */
static int q_string(const struct qctx *c, const cJSON *obj, const char *key, const char **ret_value)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v && !cJSON_IsNull(v) && !cJSON_IsString(v))
		return q_fail_value(c, key, v, "is not a name");
	*ret_value = cJSON_IsString(v) ? v->valuestring : NULL;
	return 0;
}

/* bits, one of those the format writes. */
static int q_bits(const struct qctx *c, const cJSON *obj, const char *key, const unsigned *allowed,
		  unsigned fallback, unsigned *ret_value)
{
	int64_t v;
	int r = q_number(c, obj, key, 0, 1024, fallback, &v);
	if (r < 0)
		return r;
	for (const unsigned *a = allowed; *a; a++)
		if ((uint64_t)v == *a) {
			*ret_value = *a;
			return 0;
		}
	char what[64] = "is not";
	for (const unsigned *a = allowed; *a; a++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %u", a == allowed ? "" :
			 a[1] ? "," : " or", *a);
	return q_fail_value(c, key, cJSON_GetObjectItemCaseSensitive(obj, key), what);
}

/* group_size: -1 (one group a row: 0 here) or 1..QUANT_MAX_GROUP. */
static int q_group(const struct qctx *c, const cJSON *obj, const char *key, int64_t fallback, uint64_t *ret_value)
{
	int64_t g;
	int r = q_number(c, obj, key, -1, QUANT_MAX_GROUP, fallback, &g);
	if (r < 0)
		return r;
	if (g == 0)
		return q_fail_value(c, key, cJSON_GetObjectItemCaseSensitive(obj, key), "is not a group size (-1, or 1 or more)");
	*ret_value = g < 0 ? 0 : (uint64_t)g;
	return 0;
}

/* ---- the modules left in the float type ------------------------------------- */

/* Does a module's name name a whole class (not one layer's: "model.layers.3.mlp")? */
static bool one_layer_only(const char *s)
{
	for (const char *p = s; (p = strstr(p, "layers.")) != NULL; p += 7)
		if (p[7] >= '0' && p[7] <= '9')
			return true;
	for (const char *p = s; (p = strstr(p, "h.")) != NULL; p += 2)
		if ((p == s || p[-1] == '.') && p[2] >= '0' && p[2] <= '9')
			return true;
	return false;
}

/* The classes a module name (or pattern: "model.layers.*.self_attn", "re:.*lm_head") keeps in the float type. */
static void keep_float(struct quant *q, const char *s)
{
	if (one_layer_only(s))
		return;
	if (strstr(s, "lm_head") || strstr(s, "output_layer") || strstr(s, "embed_out"))
		q->quantized[QUANT_HEAD] = false;
	if (strstr(s, "embed_tokens") || strstr(s, "wte") || strstr(s, "word_embeddings") || !strcmp(s, "embed"))
		q->quantized[QUANT_EMBED] = false;
	if (strstr(s, "attn") || strstr(s, "attention"))
		q->quantized[QUANT_ATTENTION] = false;
	if (strstr(s, "router") || strstr(s, "mlp.gate") || strstr(s, "block_sparse_moe.gate"))
		q->quantized[QUANT_ROUTER] = false;
	if (strstr(s, "vision") || strstr(s, "visual") || strstr(s, "multi_modal_projector") ||
	    strstr(s, "mm_projector") || strstr(s, "image"))
		q->quantized[QUANT_VISION] = false;
	if (strstr(s, "experts"))
		q->quantized[QUANT_EXPERTS] = false;
	/* "mlp" alone, not "mlp.gate" (a router) or "mlp.experts" */
	const char *m = strstr(s, "mlp");
	if ((m && m[3] != '.') || (m && strstr(s, "mlp.*")) || strstr(s, "feed_forward"))
		q->quantized[QUANT_MLP] = false;
}

/* A list of module names (an array of strings; null: none); anything else is malformed. */
static int q_modules(const struct qctx *c, const cJSON *obj, const char *key, struct quant *q)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!list || cJSON_IsNull(list))
		return 0;
	if (!cJSON_IsArray(list))
		return q_fail_value(c, key, list, "is not a list of module names");
	const cJSON *v;
	cJSON_ArrayForEach(v, list) {
		if (!cJSON_IsString(v))
			return q_fail_value(c, key, v, "is not a module's name (in the list)");
		keep_float(q, v->valuestring);
	}
	return 0;
}

static void set_all(struct quant *q, bool embed, bool head, bool router, bool vision)
{
	q->quantized[QUANT_EMBED] = embed;
	q->quantized[QUANT_HEAD] = head;
	q->quantized[QUANT_ATTENTION] = q->quantized[QUANT_MLP] = q->quantized[QUANT_EXPERTS] = true;
	q->quantized[QUANT_ROUTER] = router;
	q->quantized[QUANT_VISION] = vision;
}

/* prefix-intBITS ("gptq-int4"), or prefix-BITSbit (MLX's "mlx-4bit"). */
static void name_it(struct quant *q, const char *prefix, const char *kind, unsigned bits)
{
	if (!strcmp(kind, "bit"))
		snprintf(q->name, sizeof(q->name), "%s-%ubit", prefix, bits);
	else
		snprintf(q->name, sizeof(q->name), "%s-%s%u", prefix, kind, bits);
}

static enum hmn_dtype int_label(unsigned bits)
{
	return bits <= 4 ? HMN_DTYPE_INT4 : HMN_DTYPE_I8;
}

/* ---- each format ------------------------------------------------------------ */

static int read_bnb(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	bool four, eight;
	const char *type;
	int r;
	if ((r = q_flag(c, qc, "load_in_4bit", false, &four)) < 0 || (r = q_flag(c, qc, "load_in_8bit", false, &eight)) < 0 ||
	    (r = q_flag(c, qc, "bnb_4bit_use_double_quant", false, &q->double_quant)) < 0 ||
	    (r = q_string(c, qc, "bnb_4bit_quant_type", &type)) < 0)
		return r;
	if (four && eight)
		return model_fail(c->e, -EINVAL, "%s: %sload_in_4bit and load_in_8bit are both true", c->file, c->where);
	/* Neither: transformers' BitsAndBytesConfig quantizes nothing. */
	if (!four && !eight)
		return 0;
	set_all(q, false, false, true, true);
	if (four) {
		if (type && strcmp(type, "nf4") && strcmp(type, "fp4"))
			return q_fail_value(c, "bnb_4bit_quant_type", cJSON_GetObjectItemCaseSensitive(qc, "bnb_4bit_quant_type"),
					    "is not nf4 or fp4");
		q->layout = QUANT_LAYOUT_BNB4;
		q->bits = 4;
		q->group = 64;
		q->dtype = HMN_DTYPE_INT4;
		snprintf(q->name, sizeof(q->name), "bnb-%s", type ? type : "fp4");
	} else {
		q->layout = QUANT_LAYOUT_BNB8;
		q->bits = 8;
		q->dtype = HMN_DTYPE_I8;
		snprintf(q->name, sizeof(q->name), "bnb-int8");
	}
	if ((r = q_modules(c, qc, "llm_int8_skip_modules", q)) < 0)
		return r;
	return q_modules(c, qc, "modules_to_not_convert", q);
}

static int read_gptq_awq(const struct qctx *c, const cJSON *qc, bool awq, struct quant *q)
{
	static const unsigned gptq_bits[] = { 2, 3, 4, 8, 0 }, awq_bits[] = { 4, 0 };
	int r;
	if ((r = q_bits(c, qc, "bits", awq ? awq_bits : gptq_bits, 4, &q->bits)) < 0 ||
	    (r = q_group(c, qc, "group_size", 128, &q->group)) < 0)
		return r;
	set_all(q, false, false, false, false);
	q->layout = awq ? QUANT_LAYOUT_AWQ : QUANT_LAYOUT_GPTQ;
	q->zeros = true;
	q->dtype = int_label(q->bits);
	name_it(q, awq ? "awq" : "gptq", "int", q->bits);
	return q_modules(c, qc, "modules_to_not_convert", q);
}

static int read_fp8(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	const cJSON *block = cJSON_GetObjectItemCaseSensitive(qc, "weight_block_size");
	if (block && !cJSON_IsNull(block)) {
		const cJSON *a = cJSON_GetArrayItem(block, 0), *b = cJSON_GetArrayItem(block, 1);
		if (!cJSON_IsArray(block) || cJSON_GetArraySize(block) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
		    !(a->valuedouble >= 1 && a->valuedouble <= QUANT_MAX_GROUP && a->valuedouble == floor(a->valuedouble)) ||
		    !(b->valuedouble >= 1 && b->valuedouble <= QUANT_MAX_GROUP && b->valuedouble == floor(b->valuedouble)))
			return q_fail_value(c, "weight_block_size", block, "is not two block sizes ([128, 128])");
		q->block_out = (uint64_t)a->valuedouble;
		q->block_in = (uint64_t)b->valuedouble;
	}
	set_all(q, false, false, false, true);
	q->layout = QUANT_LAYOUT_FP8;
	q->bits = 8;
	q->dtype = HMN_DTYPE_F8_E4M3;
	snprintf(q->name, sizeof(q->name), "fp8");
	return q_modules(c, qc, "modules_to_not_convert", q);
}

static int read_mxfp4(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	/* transformers' Mxfp4HfQuantizer: the experts' weights alone. */
	memset(q->quantized, 0, sizeof(q->quantized));
	q->quantized[QUANT_EXPERTS] = true;
	q->layout = QUANT_LAYOUT_MXFP4;
	q->bits = 4;
	q->group = 32;
	q->dtype = HMN_DTYPE_MXFP4;
	snprintf(q->name, sizeof(q->name), "mxfp4");
	return q_modules(c, qc, "modules_to_not_convert", q);
}

static int read_exl2(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	const cJSON *bits = cJSON_GetObjectItemCaseSensitive(qc, "bits");
	const cJSON *head = cJSON_GetObjectItemCaseSensitive(qc, "head_bits");
	if (!bits || cJSON_IsNull(bits))
		return q_missing(c, "bits");
	if (!cJSON_IsNumber(bits) || !(bits->valuedouble >= 2 && bits->valuedouble <= 8))
		return q_fail_value(c, "bits", bits, "is not a mean of 2 to 8 bits a weight");
	if (head && !cJSON_IsNull(head) && (!cJSON_IsNumber(head) || !(head->valuedouble >= 2 && head->valuedouble <= 16)))
		return q_fail_value(c, "head_bits", head, "is not 2 to 16 bits");
	set_all(q, false, true, false, false);
	q->layout = QUANT_LAYOUT_EXL2;
	q->bits = (unsigned)lround(bits->valuedouble * 100);
	q->head_bits = cJSON_IsNumber(head) ? (unsigned)lround(head->valuedouble * 100) : 600;
	q->dtype = int_label(q->bits / 100);
	snprintf(q->name, sizeof(q->name), "exl2");
	return 0;
}

/* compressed-tensors: the first config group's weights, and the ignore list. */
static int read_compressed(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	static const unsigned int_bits[] = { 2, 3, 4, 8, 0 }, float_bits[] = { 4, 8, 0 };
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(qc, "config_groups");
	const char *format, *type, *strategy;
	int r;
	if (!groups || cJSON_IsNull(groups))
		return q_missing(c, "config_groups");
	if (!cJSON_IsObject(groups))
		return q_fail_value(c, "config_groups", groups, "is not an object of groups");
	const cJSON *group = groups->child;
	const cJSON *w = group ? cJSON_GetObjectItemCaseSensitive(group, "weights") : NULL;
	if (!cJSON_IsObject(group) || !cJSON_IsObject(w))
		return q_fail_value(c, "config_groups", groups, "has no group with weights");
	struct qctx wc = *c;
	char where[80];
	char gname[24];
	printable_name(group->string ? group->string : "?", gname, sizeof(gname));
	snprintf(where, sizeof(where), "%sconfig_groups.%s.weights.", c->where, gname);
	wc.where = where;
	if ((r = q_string(c, qc, "format", &format)) < 0 || (r = q_string(&wc, w, "type", &type)) < 0 ||
	    (r = q_string(&wc, w, "strategy", &strategy)) < 0)
		return r;
	bool is_float = type && !strcmp(type, "float");
	if (type && !is_float && strcmp(type, "int"))
		return q_fail_value(&wc, "type", cJSON_GetObjectItemCaseSensitive(w, "type"), "is not int or float");
	bool symmetric;
	if ((r = q_bits(&wc, w, "num_bits", is_float ? float_bits : int_bits, 8, &q->bits)) < 0 ||
	    (r = q_flag(&wc, w, "symmetric", true, &symmetric)) < 0)
		return r;
	q->group = 0;
	if (strategy && !strcmp(strategy, "group") && (r = q_group(&wc, w, "group_size", 128, &q->group)) < 0)
		return r;
	if (strategy && !strcmp(strategy, "tensor_group") && (r = q_group(&wc, w, "group_size", 16, &q->group)) < 0)
		return r;
	if (strategy && !strcmp(strategy, "block")) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(w, "block_structure");
		const cJSON *a0 = cJSON_GetArrayItem(b, 0), *a1 = cJSON_GetArrayItem(b, 1);
		if (!cJSON_IsArray(b) || !cJSON_IsNumber(a0) || !cJSON_IsNumber(a1) ||
		    !(a0->valuedouble >= 1 && a0->valuedouble <= QUANT_MAX_GROUP) ||
		    !(a1->valuedouble >= 1 && a1->valuedouble <= QUANT_MAX_GROUP))
			return q_fail_value(&wc, "block_structure", b ? b : w, "is not two block sizes");
		q->block_out = (uint64_t)a0->valuedouble;
		q->block_in = (uint64_t)a1->valuedouble;
	}
	/* targets: ["Linear"]: every linear layer but the ignored; the embeddings are no Linear. */
	set_all(q, false, true, true, true);
	q->zeros = !symmetric;
	if (is_float && q->bits == 4) {
		q->layout = QUANT_LAYOUT_NVFP4;
		q->group = 16;
		q->dtype = HMN_DTYPE_F4;
		snprintf(q->name, sizeof(q->name), "ct-nvfp4");
	} else if (is_float) {
		q->layout = QUANT_LAYOUT_FP8;
		q->dtype = HMN_DTYPE_F8_E4M3;
		q->row_scales = strategy && !strcmp(strategy, "channel");
		snprintf(q->name, sizeof(q->name), "ct-fp8");
	} else if (format && strstr(format, "pack-quantized")) {
		q->layout = QUANT_LAYOUT_PACKED;
		q->dtype = int_label(q->bits);
		name_it(q, "ct", "int", q->bits);
	} else {
		/* naive-quantized, int-quantized: a byte a weight whatever its bits. */
		q->layout = QUANT_LAYOUT_INT8;
		q->dtype = HMN_DTYPE_I8;
		name_it(q, "ct", "int", q->bits);
	}
	return q_modules(c, qc, "ignore", q);
}

/* MLX's top-level quantization: {"group_size": 64, "bits": 4} (per-module overrides left out). */
static int read_mlx(const struct qctx *c, const cJSON *mq, struct quant *q)
{
	static const unsigned bits[] = { 2, 3, 4, 5, 6, 8, 0 };
	int r;
	if ((r = q_bits(c, mq, "bits", bits, 4, &q->bits)) < 0 || (r = q_group(c, mq, "group_size", 64, &q->group)) < 0)
		return r;
	if (!q->group)
		return q_fail_value(c, "group_size", cJSON_GetObjectItemCaseSensitive(mq, "group_size"), "is not a group size");
	/* mlx_lm quantizes every Linear and Embedding; mlx-vlm leaves the vision tower alone. */
	set_all(q, true, true, true, false);
	q->layout = QUANT_LAYOUT_MLX;
	q->dtype = int_label(q->bits);
	name_it(q, "mlx", "bit", q->bits);
	return 0;
}

/*
 * ModelOpt's quant_algo (FP8, NVFP4, W4A16_AWQ) and the modules it leaves
 * out (exclude_modules in hf_quant_config.json, ignore in a config.json's
 * quantization_config of quant_method "modelopt"). None: only the KV cache.
 */
static int read_modelopt_algo(const struct qctx *c, const cJSON *mq, struct quant *q)
{
	const char *algo;
	int r;
	if ((r = q_string(c, mq, "quant_algo", &algo)) < 0)
		return r;
	if (!algo)
		return 0;
	set_all(q, false, true, false, true);
	if (!strcmp(algo, "FP8")) {
		q->layout = QUANT_LAYOUT_FP8;
		q->bits = 8;
		q->dtype = HMN_DTYPE_F8_E4M3;
		snprintf(q->name, sizeof(q->name), "modelopt-fp8");
	} else if (!strcmp(algo, "NVFP4")) {
		q->layout = QUANT_LAYOUT_NVFP4;
		q->bits = 4;
		if ((r = q_group(c, mq, "group_size", 16, &q->group)) < 0)
			return r;
		q->group = q->group ? q->group : 16;
		q->dtype = HMN_DTYPE_F4;
		snprintf(q->name, sizeof(q->name), "nvfp4");
	} else if (!strcmp(algo, "W4A16_AWQ") || !strcmp(algo, "W4A8_AWQ")) {
		q->layout = QUANT_LAYOUT_AWQ;
		q->bits = 4;
		if ((r = q_group(c, mq, "group_size", 128, &q->group)) < 0)
			return r;
		q->dtype = HMN_DTYPE_INT4;
		snprintf(q->name, sizeof(q->name), "modelopt-int4-awq");
	} else {
		memset(q, 0, sizeof(*q));
		printable_name(algo, q->unknown, sizeof(q->unknown));
		return 0;
	}
	if ((r = q_modules(c, mq, "exclude_modules", q)) < 0)
		return r;
	return q_modules(c, mq, "ignore", q);
}

/* hf_quant_config.json: {"quantization": {"quant_algo": "FP8", "exclude_modules": [...]}}. */
static int read_modelopt(const struct qctx *c, const cJSON *doc, struct quant *q)
{
	const cJSON *mq = cJSON_GetObjectItemCaseSensitive(doc, "quantization");
	if (!mq || cJSON_IsNull(mq))
		return q_missing(c, "quantization");
	if (!cJSON_IsObject(mq))
		return q_fail_value(c, "quantization", mq, "is not an object");
	struct qctx mc = *c;
	mc.where = "quantization.";
	return read_modelopt_algo(&mc, mq, q);
}

/* name in the folder of file (config.json's path, as messages name it), into buf. */
static const char *beside_name(const char *file, const char *name, char *buf, size_t size)
{
	const char *slash = strrchr(file, '/'), *back = strrchr(file, '\\');
	if (back && (!slash || back > slash))
		slash = back;
	if (!slash)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%.*s%s", (int)(slash - file + 1), file, name);
	return buf;
}

/* What quant_read() reads, into q (zeroed by the caller); partly written on failure. */
static int read_quant(const char *file, const cJSON *root, const cJSON *modelopt, const cJSON *gptq, struct quant *q,
		      struct model_error *e)
{
	struct qctx c = { .file = file, .where = "quantization_config.", .e = e };
	const cJSON *qc = cJSON_GetObjectItemCaseSensitive(root, "quantization_config");
	const cJSON *mlx = cJSON_GetObjectItemCaseSensitive(root, "quantization");
	const char *method;
	int r;

	char side[1024];
	if (modelopt) {
		struct qctx mc = { .file = beside_name(file, "hf_quant_config.json", side, sizeof(side)), .where = "", .e = e };
		if (!cJSON_IsObject(modelopt))
			return model_fail(e, -EINVAL, "%s: not a JSON object", mc.file);
		if ((r = read_modelopt(&mc, modelopt, q)) < 0 || q->name[0] || q->unknown[0])
			return r;
	}
	/*
	 * mlx_lm writes its quantization twice, the second as a
	 * quantization_config without a quant_method: MLX's.
	 */
	if (cJSON_IsObject(mlx) && cJSON_IsObject(qc) && !cJSON_GetObjectItemCaseSensitive(qc, "quant_method")) {
		c.where = "quantization.";
		return read_mlx(&c, mlx, q);
	}
	if (qc && !cJSON_IsNull(qc)) {
		if (!cJSON_IsObject(qc)) {
			c.where = "";
			return q_fail_value(&c, "quantization_config", qc, "is not an object");
		}
		if ((r = q_string(&c, qc, "quant_method", &method)) < 0)
			return r;
		/* Older bitsandbytes configs name no method: their load_in_* flags say it. */
		if (!method && (cJSON_GetObjectItemCaseSensitive(qc, "load_in_4bit") ||
				cJSON_GetObjectItemCaseSensitive(qc, "load_in_8bit")))
			method = "bitsandbytes";
		if (!method)
			return q_missing(&c, "quant_method");
		if (!strcmp(method, "bitsandbytes"))
			return read_bnb(&c, qc, q);
		if (!strcmp(method, "gptq"))
			return read_gptq_awq(&c, qc, false, q);
		if (!strcmp(method, "awq"))
			return read_gptq_awq(&c, qc, true, q);
		if (!strcmp(method, "fp8"))
			return read_fp8(&c, qc, q);
		if (!strcmp(method, "mxfp4"))
			return read_mxfp4(&c, qc, q);
		if (!strcmp(method, "exl2"))
			return read_exl2(&c, qc, q);
		if (!strcmp(method, "compressed-tensors"))
			return read_compressed(&c, qc, q);
		if (!strcmp(method, "modelopt"))
			return read_modelopt_algo(&c, qc, q);
		printable_name(method, q->unknown, sizeof(q->unknown));
		return 0;
	}
	/* MLX writes "quantization" at the top level; other configs use the key for other things (a string). */
	if (cJSON_IsObject(mlx)) {
		c.where = "quantization.";
		return read_mlx(&c, mlx, q);
	}
	/* Older GPTQ repositories (TheBloke's) say it in quantize_config.json alone. */
	if (gptq) {
		struct qctx gc = { .file = beside_name(file, "quantize_config.json", side, sizeof(side)), .where = "", .e = e };
		if (!cJSON_IsObject(gptq))
			return model_fail(e, -EINVAL, "%s: not a JSON object", gc.file);
		return read_gptq_awq(&gc, gptq, false, q);
	}
	return 0;
}

int quant_read(const char *file, const cJSON *root, const cJSON *modelopt, const cJSON *gptq,
	       struct quant *ret_quant, struct model_error *e)
{
	struct quant q = { 0 };
	int r = read_quant(file, root, modelopt, gptq, &q, e);
	if (r >= 0)
		*ret_quant = q;
	return r;
}

unsigned quant_word_bits(const struct quant *q)
{
	switch (q->layout) {
	case QUANT_LAYOUT_GPTQ:
	case QUANT_LAYOUT_AWQ:
	case QUANT_LAYOUT_MLX:
	case QUANT_LAYOUT_PACKED:
		return q->bits;
	default:
		return 0;
	}
}

/* ---- a matrix's bytes ------------------------------------------------------- */

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a == HMN_UNKNOWN ? HMN_UNKNOWN : a / b + (a % b != 0);
}

/* Bytes of words bits-wide weights packed into 32-bit words. */
static uint64_t packed(uint64_t weights, unsigned bits)
{
	return sat_mul(div_up(sat_mul(weights, bits), 32), 4);
}

uint64_t quant_matrix_bytes(const struct quant *q, enum quant_part part, uint64_t in, uint64_t out,
			    enum hmn_dtype float_type)
{
	uint64_t n = sat_mul(in, out);
	uint64_t fsize = dtype_price(float_type, 1);
	if (fsize == HMN_UNKNOWN || !fsize)
		fsize = 2;
	if ((unsigned)part >= QUANT_PARTS || q->layout == QUANT_LAYOUT_NONE || !q->quantized[part] || !n)
		return dtype_price(float_type, n);
	uint64_t groups = q->group ? div_up(in, q->group) : 1;
	uint64_t scales = sat_mul(groups, out); /* one per group of each output row */
	switch (q->layout) {
	case QUANT_LAYOUT_BNB4: {
		uint64_t blocks = div_up(n, 64);
		uint64_t absmax = q->double_quant ? sat_add(sat_add(blocks, sat_mul(div_up(blocks, 256), 4)), 256 * 4)
						  : sat_mul(blocks, 4);
		/* the 16-entry code book, and quant_state's few bytes of JSON */
		return sat_add(sat_add(div_up(n, 2), absmax), 16 * 4 + 100);
	}
	case QUANT_LAYOUT_BNB8:
		return sat_add(n, sat_mul(out, 4));
	case QUANT_LAYOUT_GPTQ:
		/* qweight, qzeros, f16 scales, g_idx */
		return sat_add(sat_add(sat_mul(packed(in, q->bits), out), sat_mul(groups, packed(out, q->bits))),
			       sat_add(sat_mul(scales, 2), sat_mul(in, 4)));
	case QUANT_LAYOUT_AWQ:
		return sat_add(sat_add(sat_mul(in, packed(out, q->bits)), sat_mul(groups, packed(out, q->bits))),
			       sat_mul(scales, 2));
	case QUANT_LAYOUT_FP8:
		if (q->block_out && q->block_in)
			return sat_add(n, sat_mul(sat_mul(div_up(out, q->block_out), div_up(in, q->block_in)), 4));
		/* compressed-tensors' channel scales in the float type; one float32 scale a tensor otherwise */
		return q->row_scales ? sat_add(n, sat_mul(out, fsize)) : sat_add(n, 4);
	case QUANT_LAYOUT_MXFP4:
		return sat_mul(sat_mul(div_up(in, 32), out), 17);
	case QUANT_LAYOUT_NVFP4:
		/* e2m1 pairs, an fp8 scale per 16, a float32 global scale for weights and inputs */
		return sat_add(sat_add(div_up(n, 2), sat_mul(div_up(in, q->group ? q->group : 16), out)), 8);
	case QUANT_LAYOUT_MLX:
		return sat_add(sat_mul(packed(in, q->bits), out), sat_mul(sat_mul(scales, 2), fsize));
	case QUANT_LAYOUT_PACKED:
		/* weight_packed, weight_scale in the float type, zero points when asymmetric, weight_shape */
		return sat_add(sat_add(sat_mul(packed(in, q->bits), out), sat_mul(scales, fsize)),
			       sat_add(q->zeros ? sat_mul(groups, packed(out, q->bits)) : 0, 16));
	case QUANT_LAYOUT_INT8:
		return sat_add(n, sat_mul(scales, fsize));
	case QUANT_LAYOUT_EXL2: {
		unsigned bits = part == QUANT_HEAD ? q->head_bits : q->bits;
		return div_up(sat_mul(n, bits), 800);
	}
	case QUANT_LAYOUT_NONE:
		break;
	}
	return dtype_price(float_type, n);
}
