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
 *   fbgemm_fp8 (transformers' FbgemmFp8Linear): a byte a weight, a float32
 *     scale a row.
 *   ModelOpt (hf_quant_config.json): FP8 (a float32 scale per tensor),
 *     NVFP4 (an fp8 scale per 16, float32 global scales), W4A16_AWQ.
 *   EXL2: a mean number of bits a weight, head_bits for the head.
 *
 * modules_to_not_convert, llm_int8_skip_modules, ignore and exclude_modules
 * name modules left in the float type, matched module by module (below).
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

/*
 * bits, one of those the format writes (absent: fallback). A null is
 * Python's NaN as json.dumps writes it, or a config's mistake: no number of
 * bits, said as such rather than taken for the default.
 */
static int q_bits(const struct qctx *c, const cJSON *obj, const char *key, const unsigned *allowed,
		  unsigned fallback, unsigned *ret_value)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		*ret_value = fallback;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return q_fail_value(c, key, v, "is not a number");
	for (const unsigned *a = allowed; *a; a++)
		if (v->valuedouble == (double)*a) {
			*ret_value = *a;
			return 0;
		}
	char what[64] = "is not";
	for (const unsigned *a = allowed; *a; a++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %u", a == allowed ? "" :
			 a[1] ? "," : " or", *a);
	return q_fail_value(c, key, v, what);
}

/* group_size: -1 (one group a row: 0 here) or 1..QUANT_MAX_GROUP. */
static int q_group(const struct qctx *c, const cJSON *obj, const char *key, int64_t fallback, uint64_t *ret_value)
{
	int64_t g = 0;
	int r = q_number(c, obj, key, -1, QUANT_MAX_GROUP, fallback, &g);
	if (r < 0)
		return r;
	if (g == 0)
		return q_fail_value(c, key, cJSON_GetObjectItemCaseSensitive(obj, key), "is not a group size (-1, or 1 or more)");
	*ret_value = g < 0 ? 0 : (uint64_t)g;
	return 0;
}

/* ---- the modules left in the float type ------------------------------------- */

/*
 * The lists are matched module by module, as the code that reads them does:
 *
 *   compressed-tensors (utils/match.py, is_match/_match_name): "re:PATTERN"
 *     is Python's re.match (anchored at the start only), anything else the
 *     module's exact name. llm-compressor saves its recipe's patterns
 *     resolved (QuantizationConfig.from_pretrained lists every module left
 *     out by name: "model.layers.0.self_attn.q_proj" ...), Kimi-K2's config
 *     the patterns themselves ("re:.*self_attn.*", "re:.*shared_experts.*").
 *   ModelOpt (export/quant_utils.py, is_layer_excluded): fnmatch globs
 *     ("*lm_head*", "model.layers.0.mlp*").
 *   transformers (bitsandbytes, GPTQ, AWQ, fp8 modules_to_not_convert;
 *     should_convert_module): a name equal to the module's, a prefix of it
 *     up to a dot ("model.layers.3." or "lm_head"), or its tail after a dot.
 */

/* Steps a pattern may take on one name: past them it is one hmn cannot tell. */
#define RX_STEPS 20000

/* Does the atom at re (a char, "." or "\\c") match c? Its length in *ret_len. */
static bool rx_atom(const char *re, char c, size_t *ret_len)
{
	if (re[0] == '\\' && re[1]) {
		*ret_len = 2;
		return c == re[1];
	}
	*ret_len = 1;
	return re[0] == '.' ? c != '\0' : c == re[0];
}

/* re.match of a pattern without groups (literals, ".", "\\c", "*", "+", "?", "$") at s; -1: too many steps. */
static int rx_here(const char *re, const char *s, unsigned *steps)
{
	if (++*steps > RX_STEPS)
		return -1;
	if (!re[0])
		return 1;
	if (re[0] == '$' && !re[1])
		return !*s;
	size_t len;
	bool hit = *s && rx_atom(re, *s, &len);
	rx_atom(re, 'x', &len);
	char quant = re[len];
	const char *rest = re + len + (quant == '*' || quant == '+' || quant == '?');
	if (quant == '?') {
		int r = hit ? rx_here(rest, s + 1, steps) : 0;
		return r ? r : rx_here(rest, s, steps);
	}
	if (quant == '*' || quant == '+') {
		const char *t = s;
		if (quant == '+') {
			if (!hit)
				return 0;
			t++;
		}
		for (;; t++) {
			int r = rx_here(rest, t, steps);
			if (r)
				return r;
			if (!*t || !rx_atom(re, *t, &len))
				return 0;
		}
	}
	return hit ? rx_here(re + len, s + 1, steps) : 0;
}

/*
 * re.match of a pattern whose groups are plain alternatives ("(gate|up)_proj"),
 * each group tried alternative by alternative; -1: a pattern hmn cannot
 * read (classes, counts, nested or repeated groups) or too many steps.
 */
static int rx_match(const char *re, const char *s, unsigned *steps)
{
	const char *open = NULL;
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '[' || *p == '{' || *p == ')' || *p == '|' || (*p == '^' && p != re))
			return -1;
		if (*p == '(') {
			open = p;
			break;
		}
	}
	if (!open)
		return rx_here(re[0] == '^' ? re + 1 : re, s, steps);
	const char *close = open + 1;
	while (*close && *close != ')') {
		if (*close == '(' || *close == '[' || *close == '{' || *close == '?')
			return -1;
		close += close[0] == '\\' && close[1] ? 2 : 1;
	}
	if (!*close || close[1] == '*' || close[1] == '+' || close[1] == '?' || close[1] == '{')
		return -1;
	char buf[512];
	for (const char *alt = open + 1;;) {
		const char *bar = alt;
		while (bar < close && *bar != '|')
			bar += bar[0] == '\\' && bar[1] ? 2 : 1;
		int n = snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(open - re), re, (int)(bar - alt), alt, close + 1);
		if (n < 0 || (size_t)n >= sizeof(buf))
			return -1;
		int r = rx_match(buf, s, steps);
		if (r)
			return r;
		if (bar >= close)
			return 0;
		alt = bar + 1;
	}
}

/* fnmatch's glob ("*", "?", "[abc]", "[!a-z]"), the whole name. */
static bool glob_match(const char *g, const char *s)
{
	const char *star = NULL, *back = NULL;
	while (*s) {
		if (*g == '*') {
			star = ++g;
			back = s;
			continue;
		}
		bool hit = false;
		size_t len = 1;
		if (*g == '[') {
			const char *p = g + 1;
			bool neg = *p == '!';
			p += neg;
			const char *first = p;
			while (*p && (*p != ']' || p == first)) {
				if (p[1] == '-' && p[2] && p[2] != ']') {
					hit |= *s >= p[0] && *s <= p[2];
					p += 3;
				} else {
					hit |= *s == *p++;
				}
			}
			if (*p == ']') {
				hit ^= neg;
				len = (size_t)(p - g) + 1;
			} else {
				hit = *s == '[';
			}
		} else {
			hit = *g && (*g == '?' || *g == *s);
		}
		if (hit) {
			g += len;
			s++;
		} else if (star) {
			g = star;
			s = ++back;
		} else {
			return false;
		}
	}
	while (*g == '*')
		g++;
	return !*g;
}

/* transformers' should_convert_module: equal, a prefix to a dot, or the tail after one. */
static bool name_match(const char *key, const char *module)
{
	size_t k = strlen(key), m = strlen(module);
	if (!k)
		return false;
	if (!strcmp(key, module) || (m > k && module[k] == '.' && !strncmp(module, key, k)))
		return true;
	if (m > k && module[m - k - 1] == '.' && !strcmp(module + m - k, key))
		return true;
	/* "self_attn" in "model.layers.0.self_attn.q_proj": bitsandbytes' "key." anywhere after a dot */
	for (const char *p = module; (p = strstr(p, key)) != NULL; p++)
		if ((p == module || p[-1] == '.') && p[k] == '.')
			return true;
	return false;
}

/* Does a list's entry name module? -1: a pattern hmn cannot read. */
static int entry_match(const char *entry, const char *module)
{
	if (!strncmp(entry, "re:", 3)) {
		unsigned steps = 0;
		return rx_match(entry + 3, module, &steps);
	}
	if (strpbrk(entry, "*?["))
		return glob_match(entry, module);
	return name_match(entry, module);
}

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

/* Does s hold word followed by none of the characters in not_after? */
static bool has_word(const char *s, const char *word, const char *not_after)
{
	size_t n = strlen(word);
	for (const char *p = s; (p = strstr(p, word)) != NULL; p++)
		if (!p[n] || !strchr(not_after, p[n]))
			return true;
	return false;
}

/*
 * The classes a module name keeps in the float type as a whole. The
 * embeddings, head and vision tower by what it says; the layers' classes
 * only for a name that is neither one layer's nor a pattern hmn matches
 * module by module (quant_module_bytes()): "self_attn", "mlp", bitsandbytes'
 * "block_sparse_moe.gate", a regular expression hmn cannot read.
 */
static void keep_float(struct quant *q, const char *s)
{
	if (one_layer_only(s))
		return;
	if (strstr(s, "vision") || strstr(s, "visual") || strstr(s, "multi_modal_projector") ||
	    strstr(s, "mm_projector") || strstr(s, "image"))
		q->quantized[QUANT_VISION] = false;
	bool matched = strpbrk(s, "*?[") != NULL;
	if (!strncmp(s, "re:", 3)) {
		unsigned steps = 0;
		matched = rx_match(s + 3, "", &steps) >= 0;
	}
	if (matched)
		return;
	if (strstr(s, "lm_head") || strstr(s, "output_layer") || strstr(s, "embed_out"))
		q->quantized[QUANT_HEAD] = false;
	if (strstr(s, "embed_tokens") || strstr(s, "wte") || strstr(s, "word_embeddings") || !strcmp(s, "embed"))
		q->quantized[QUANT_EMBED] = false;
	if (strstr(s, "attn") || strstr(s, "attention"))
		q->quantized[QUANT_ATTENTION] = false;
	/* the router: "router", "mlp.gate" and "block_sparse_moe.gate", not an MLP's gate_proj or gate_up_proj */
	if (strstr(s, "router") || has_word(s, "mlp.gate", "_") || has_word(s, "block_sparse_moe.gate", "_"))
		q->quantized[QUANT_ROUTER] = false;
	/* shared experts are hmn's MLP class, never the routed experts */
	if (strstr(s, "shared_expert"))
		q->quantized[QUANT_MLP] = false;
	else if (strstr(s, "experts"))
		q->quantized[QUANT_EXPERTS] = false;
	/* "mlp" alone or its projections ("mlp.gate_proj"), not its router or experts */
	const char *m = strstr(s, "mlp");
	bool mlp_part = m && m[3] == '.' && !strncmp(m + 4, "gate", 4) && m[8] == '_';
	if ((m && m[3] != '.') || mlp_part || (m && strstr(s, "mlp.*")) ||
	    (strstr(s, "feed_forward") && !strstr(s, "router") && !strstr(s, "experts")))
		q->quantized[QUANT_MLP] = false;
	if (m && m[3] == '.' && (!strncmp(m + 4, "up_proj", 7) || !strncmp(m + 4, "down_proj", 9)))
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
	if (list->child)
		q->keep[q->keep[0] ? 1 : 0] = list;
	return 0;
}

bool quant_module_quantized(const struct quant *q, enum quant_part part, const char *module)
{
	if ((unsigned)part >= QUANT_PARTS || q->layout == QUANT_LAYOUT_NONE || !q->quantized[part])
		return false;
	if (!module)
		return true;
	for (size_t i = 0; i < 2; i++) {
		const cJSON *v;
		if (!q->keep[i])
			continue;
		cJSON_ArrayForEach(v, q->keep[i])
			if (cJSON_IsString(v) && entry_match(v->valuestring, module) > 0)
				return false;
	}
	return true;
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

/*
 * The type a format's weights are said in (model.dtype, the title's
 * "(int3)"): their own bits, never the next of int4 and i8 (a GPTQ 3-bit
 * checkpoint was "int4", MLX's 6-bit "i8").
 */
static enum hmn_dtype int_label(unsigned bits)
{
	static const enum hmn_dtype by_bits[] = {
		HMN_DTYPE_INT2, HMN_DTYPE_INT2, HMN_DTYPE_INT2, HMN_DTYPE_INT3, HMN_DTYPE_INT4,
		HMN_DTYPE_INT5, HMN_DTYPE_INT6, HMN_DTYPE_INT7, HMN_DTYPE_I8,
	};
	return bits < sizeof(by_bits) / sizeof(by_bits[0]) ? by_bits[bits] : HMN_DTYPE_I8;
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

/*
 * transformers' fbgemm_fp8 (FbgemmFp8Config, integrations/fbgemm_fp8.py:
 * FbgemmFp8Linear; Meta's Llama-3.1-405B-Instruct-FP8): every Linear but
 * modules_to_not_convert and the head, its weight float8_e4m3fn [out, in]
 * and a float32 weight_scale [out, 1] a row: a block of one row's whole width.
 */
static int read_fbgemm_fp8(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	set_all(q, false, false, true, true);
	q->layout = QUANT_LAYOUT_FP8;
	q->bits = 8;
	q->block_out = 1;
	q->block_in = QUANT_MAX_GROUP;
	q->dtype = HMN_DTYPE_F8_E4M3;
	snprintf(q->name, sizeof(q->name), "fbgemm-fp8");
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
	/* A mean of bits, as EXL2's repositories name their branches ("6.5bpw"); its type the nearest whole bits. */
	q->dtype = int_label((q->bits + 50) / 100);
	if (q->bits % 10)
		snprintf(q->name, sizeof(q->name), "exl2-%u.%02ubpw", q->bits / 100, q->bits % 100);
	else
		snprintf(q->name, sizeof(q->name), "exl2-%u.%ubpw", q->bits / 100, q->bits / 10 % 10);
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
		if (!cJSON_IsArray(b) || cJSON_GetArraySize(b) != 2 || !cJSON_IsNumber(a0) || !cJSON_IsNumber(a1) ||
		    !(a0->valuedouble >= 1 && a0->valuedouble <= QUANT_MAX_GROUP && a0->valuedouble == floor(a0->valuedouble)) ||
		    !(a1->valuedouble >= 1 && a1->valuedouble <= QUANT_MAX_GROUP && a1->valuedouble == floor(a1->valuedouble)))
			return q_fail_value(&wc, "block_structure", b ? b : w, "is not two block sizes");
		q->block_out = (uint64_t)a0->valuedouble;
		q->block_in = (uint64_t)a1->valuedouble;
	}
	/* targets: ["Linear"]: every linear layer but the ignored; the embeddings are no Linear. */
	set_all(q, false, true, true, true);
	q->zeros = !symmetric;
	if (is_float && q->bits == 4 && format && strstr(format, "mxfp4")) {
		/* mxfp4-pack-quantized: weight_packed two a byte, a uint8 (e8m0) weight_scale per 32 */
		q->layout = QUANT_LAYOUT_MXFP4;
		q->group = 32;
		q->dtype = HMN_DTYPE_MXFP4;
		snprintf(q->name, sizeof(q->name), "ct-mxfp4");
	} else if (is_float && q->bits == 4) {
		/* nvfp4-pack-quantized: an fp8 scale per group_size (16 as llm-compressor's NVFP4 scheme writes it) */
		q->layout = QUANT_LAYOUT_NVFP4;
		q->group = q->group ? q->group : 16;
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

/*
 * MLX's top-level quantization: {"group_size": 64, "bits": 4, "mode":
 * "affine"} (per-module overrides left out). mlx_lm's utils.py
 * (quantize_model) writes mode beside group_size and bits; mlx.nn's
 * QuantizedLinear keeps a bias beside each group's scale in affine mode
 * alone, and mx.quantize's mxfp4, nvfp4 and mxfp8 modes store one uint8
 * scale a group (e8m0, or nvfp4's e4m3) and no biases, at their fixed
 * groups (32, 16, 32) and bits (4, 4, 8).
 */
static int read_mlx(const struct qctx *c, const cJSON *mq, struct quant *q)
{
	static const unsigned bits[] = { 2, 3, 4, 5, 6, 8, 0 };
	const char *mode;
	int r;
	if ((r = q_string(c, mq, "mode", &mode)) < 0 ||
	    (r = q_bits(c, mq, "bits", bits, 4, &q->bits)) < 0 || (r = q_group(c, mq, "group_size", 64, &q->group)) < 0)
		return r;
	if (!q->group)
		return q_fail_value(c, "group_size", cJSON_GetObjectItemCaseSensitive(mq, "group_size"), "is not a group size");
	/* mlx_lm quantizes every Linear and Embedding; mlx-vlm leaves the vision tower alone. */
	set_all(q, true, true, true, false);
	q->layout = QUANT_LAYOUT_MLX;
	q->dtype = int_label(q->bits);
	if (!mode || !strcmp(mode, "affine")) {
		q->zeros = true; /* the biases */
		name_it(q, "mlx", "bit", q->bits);
		return 0;
	}
	if (strcmp(mode, "mxfp4") && strcmp(mode, "nvfp4") && strcmp(mode, "mxfp8"))
		return q_fail_value(c, "mode", cJSON_GetObjectItemCaseSensitive(mq, "mode"),
				    "is not affine, mxfp4, nvfp4 or mxfp8");
	q->bits = mode[2] == '8' ? 8 : 4;
	q->dtype = mode[2] == '8' ? HMN_DTYPE_F8_E4M3 : mode[0] == 'n' ? HMN_DTYPE_F4 : HMN_DTYPE_MXFP4;
	snprintf(q->name, sizeof(q->name), "mlx-%s", mode);
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
		/* NVFP4 scales every 16 weights: -1 (one group a row) is no NVFP4 */
		if (!q->group)
			return q_fail_value(c, "group_size", cJSON_GetObjectItemCaseSensitive(mq, "group_size"),
					    "is not a group size of NVFP4 (16)");
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

static int read_gptq(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	return read_gptq_awq(c, qc, false, q);
}

static int read_awq(const struct qctx *c, const cJSON *qc, struct quant *q)
{
	return read_gptq_awq(c, qc, true, q);
}

/*
 * Each quantization_config.quant_method hmn reads (transformers'
 * QuantizationMethod's values) and its reader; a method not here is said
 * as unknown, its weights priced in the float type.
 */
static const struct quant_method {
	const char *name;
	int (*read)(const struct qctx *c, const cJSON *qc, struct quant *q);
} methods[] = {
	{ "bitsandbytes", read_bnb },
	{ "gptq", read_gptq },
	{ "awq", read_awq },
	{ "fp8", read_fp8 },
	{ "fbgemm_fp8", read_fbgemm_fp8 },
	{ "mxfp4", read_mxfp4 },
	{ "exl2", read_exl2 },
	{ "compressed-tensors", read_compressed },
	{ "modelopt", read_modelopt_algo },
};

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
			return model_fail(e, -EINVAL, "hf_quant_config.json beside %s: not a JSON object", file);
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
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
			if (!strcmp(method, methods[i].name))
				return methods[i].read(&c, qc, q);
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
			return model_fail(e, -EINVAL, "quantize_config.json beside %s: not a JSON object", file);
		return read_gptq(&gc, gptq, q);
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

uint64_t quant_module_bytes(const struct quant *q, enum quant_part part, const char *module, uint64_t in,
			    uint64_t out, enum hmn_dtype float_type)
{
	if (module && !quant_module_quantized(q, part, module))
		return dtype_price(float_type, sat_mul(in, out));
	return quant_matrix_bytes(q, part, in, out, float_type);
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
		/* affine: a scale and a bias a group in the float type; mxfp4, nvfp4, mxfp8: a uint8 scale */
		return sat_add(sat_mul(packed(in, q->bits), out), q->zeros ? sat_mul(sat_mul(scales, 2), fsize) : scales);
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
