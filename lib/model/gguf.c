/*
 * GGUF headers (ggml's docs/gguf.md): versions 2 and 3, little-endian, split
 * files. Only the metadata the estimate needs is kept, and the tensor infos
 * are summed as they stream past; every length, count and offset is checked
 * against the file's size (and the header's bound) before it is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/number.h"

enum gguf_type {
	GGUF_U8, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL,
	GGUF_STRING, GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64, GGUF_TYPE_COUNT
};

static const uint8_t gguf_type_size[GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

/* The {arch}.* keys the estimate reads. */
enum arch_key {
	K_BLOCK_COUNT, K_CONTEXT, K_EMBD, K_FF, K_HEAD, K_HEAD_KV, K_KEY_LEN, K_VALUE_LEN,
	K_KEY_LEN_MLA, K_VALUE_LEN_MLA, K_KV_LORA, K_SWA, K_SWA_PATTERN, K_EXPERTS, K_EXPERTS_USED,
	K_FF_EXPERT, K_SHARED_EXPERTS, K_VOCAB, K_ROPE_DIM, K_SSM_CONV, K_SSM_INNER, K_SSM_STATE,
	K_SSM_GROUP, K_FULL_ATTENTION, K_COUNT
};

static const char *const arch_key_names[K_COUNT] = {
	"block_count", "context_length", "embedding_length", "feed_forward_length",
	"attention.head_count", "attention.head_count_kv", "attention.key_length",
	"attention.value_length", "attention.key_length_mla", "attention.value_length_mla",
	"attention.kv_lora_rank", "attention.sliding_window", "attention.sliding_window_pattern",
	"expert_count", "expert_used_count", "expert_feed_forward_length", "expert_shared_count",
	"vocab_size", "rope.dimension_count", "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size",
	"ssm.group_count", "full_attention_interval",
};

#define GGUF_MAX_PREFIX 64
#define GGUF_MAX_CANDIDATES 256

/* A value of an {arch}.* key, kept until the architecture is known. */
struct candidate {
	char prefix[GGUF_MAX_PREFIX];
	enum arch_key key;
	uint64_t scalar;          /* a scalar, or an array's largest element */
	uint32_t *array;          /* a per-layer array, or NULL */
	uint32_t n;
	bool not_whole;           /* negative, a float or a string (read as 0): refused where the shape needs it */
};

struct cursor {
	const struct reader *r;
	uint64_t pos, end;        /* end: the file's size or the header's bound, the smaller */
	uint8_t buf[65536];
	uint64_t buf_at;
	size_t buf_len;
	struct model_error *e;
};

struct gguf_state {
	struct cursor c;
	char architecture[GGUF_MAX_PREFIX];
	char name[256];
	uint32_t alignment;
	uint64_t split_no, split_count, split_tensors;
	bool has_split_no, has_split_count, has_split_tensors;
	uint64_t n_tokens;        /* tokenizer.ggml.tokens' length */
	struct candidate *cands;
	size_t n_cands;
};

static int truncated(struct cursor *c, const char *what, uint64_t need)
{
	if (c->end < c->r->size && c->pos + need > c->end)
		return model_fail(c->e, -EFBIG, "%s: GGUF header larger than %u MiB at offset %" PRIu64
				  " (%s)", c->r->name, GGUF_MAX_HEADER >> 20, c->pos, what);
	return model_fail(c->e, -EINVAL, "%s: truncated GGUF: %s at offset %" PRIu64 " runs past the end"
			  " of the file (%" PRIu64 " byte%s)", c->r->name, what, c->pos, c->r->size,
			  c->r->size == 1 ? "" : "s");
}

/* Is there room for n more bytes? */
static bool fits(const struct cursor *c, uint64_t n)
{
	return c->pos <= c->end && n <= c->end - c->pos;
}

static int cur_read(struct cursor *c, void *out, size_t n, const char *what)
{
	if (!fits(c, n))
		return truncated(c, what, n);
	if (n > sizeof(c->buf))
		return model_fail(c->e, -EINVAL, "%s: %s of %zu bytes at offset %" PRIu64, c->r->name, what,
				  n, c->pos);
	if (c->pos < c->buf_at || c->pos + n > c->buf_at + c->buf_len) {
		uint64_t left = c->r->size - c->pos;
		size_t len = left < sizeof(c->buf) ? (size_t)left : sizeof(c->buf);
		int r = c->r->read_at(c->r->userdata, c->pos, c->buf, len);
		if (r < 0)
			return model_fail(c->e, r, "%s: cannot read at offset %" PRIu64 ": %s", c->r->name,
					  c->pos, strerror(-r));
		c->buf_at = c->pos;
		c->buf_len = len;
	}
	memcpy(out, c->buf + (c->pos - c->buf_at), n);
	c->pos += n;
	return 0;
}

static int cur_skip(struct cursor *c, uint64_t n, const char *what)
{
	if (!fits(c, n))
		return truncated(c, what, n);
	c->pos += n;
	return 0;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int cur_u32(struct cursor *c, uint32_t *ret, const char *what)
{
	uint8_t b[4];
	int r = cur_read(c, b, 4, what);
	if (r >= 0)
		*ret = (uint32_t)le(b, 4);
	return r;
}

static int cur_u64(struct cursor *c, uint64_t *ret, const char *what)
{
	uint8_t b[8];
	int r = cur_read(c, b, 8, what);
	if (r >= 0)
		*ret = le(b, 8);
	return r;
}

/* A string: into out (NUL-terminated) when it is at most max bytes, else an error. */
static int cur_string(struct cursor *c, char *out, size_t max, size_t *ret_len, const char *what)
{
	uint64_t len;
	uint64_t at = c->pos;
	int r = cur_u64(c, &len, what);
	if (r < 0)
		return r;
	if (!fits(c, len)) {
		c->pos = at;
		return truncated(c, what, len + 8);
	}
	if (len > max)
		return model_fail(c->e, -EINVAL, "%s: %s of %" PRIu64 " bytes at offset %" PRIu64
				  " (at most %zu)", c->r->name, what, len, at, max);
	if ((r = cur_read(c, out, (size_t)len, what)) < 0)
		return r;
	out[len] = '\0';
	*ret_len = (size_t)len;
	return 0;
}

/* A string of any length up to the file's end, skipped. */
static int skip_string(struct cursor *c, const char *what)
{
	uint64_t len;
	int r = cur_u64(c, &len, what);
	return r < 0 ? r : cur_skip(c, len, what);
}

/*
 * A scalar value of a numeric or bool type, as unsigned: 0, or 1 when it
 * is not a whole number of 0 or more (a negative one or a float, read as 0).
 */
static int read_scalar(struct cursor *c, uint32_t type, uint64_t *ret)
{
	uint8_t b[8];
	size_t n = gguf_type_size[type];
	int r = cur_read(c, b, n, "a value");
	if (r < 0)
		return r;
	uint64_t v = le(b, n);
	bool negative = false;
	switch (type) {
	case GGUF_I8: negative = v & 0x80; break;
	case GGUF_I16: negative = v & 0x8000; break;
	case GGUF_I32: negative = v & 0x80000000u; break;
	case GGUF_I64: negative = v >> 63; break;
	case GGUF_F32: case GGUF_F64: v = 0; break; /* no key we read is a float */
	default: break;
	}
	*ret = negative ? 0 : v;
	return negative || type == GGUF_F32 || type == GGUF_F64;
}

static bool is_number(uint32_t type)
{
	return type < GGUF_TYPE_COUNT && type != GGUF_STRING && type != GGUF_ARRAY && type != GGUF_F32 &&
	       type != GGUF_F64;
}

/* Skips a value of type, arrays inside arrays at most GGUF_MAX_DEPTH deep. */
static int skip_value(struct cursor *c, uint32_t type, unsigned depth)
{
	if (type >= GGUF_TYPE_COUNT)
		return model_fail(c->e, -EINVAL, "%s: value of unknown type %u at offset %" PRIu64,
				  c->r->name, type, c->pos - 4);
	if (type == GGUF_STRING)
		return skip_string(c, "a string");
	if (type != GGUF_ARRAY)
		return cur_skip(c, gguf_type_size[type], "a value");
	if (depth >= GGUF_MAX_DEPTH)
		return model_fail(c->e, -EINVAL, "%s: arrays nested more than %u deep at offset %" PRIu64,
				  c->r->name, GGUF_MAX_DEPTH, c->pos);
	uint32_t etype;
	uint64_t count;
	int r;
	if ((r = cur_u32(c, &etype, "an array's type")) < 0 || (r = cur_u64(c, &count, "an array's length")) < 0)
		return r;
	if (etype >= GGUF_TYPE_COUNT)
		return model_fail(c->e, -EINVAL, "%s: array of unknown type %u at offset %" PRIu64,
				  c->r->name, etype, c->pos - 12);
	if (etype != GGUF_STRING && etype != GGUF_ARRAY) {
		uint64_t bytes;
		if (mul_overflows(count, gguf_type_size[etype], &bytes))
			return truncated(c, "an array", UINT64_MAX);
		return cur_skip(c, bytes, "an array");
	}
	/* Each element takes at least 8 bytes (a length, or a type and a count): bounded by the file. */
	uint64_t min_bytes = etype == GGUF_STRING ? 8 : 12;
	if (count > (c->end - c->pos) / min_bytes)
		return truncated(c, "an array", count);
	for (uint64_t i = 0; i < count; i++)
		if ((r = skip_value(c, etype, depth + 1)) < 0)
			return r;
	return 0;
}

/* Which {arch}.KEY this is, with the prefix before it; K_COUNT for none. */
static enum arch_key match_arch_key(const char *key, size_t len, size_t *ret_prefix)
{
	const char *dot = memchr(key, '.', len);
	if (!dot || (size_t)(dot - key) >= GGUF_MAX_PREFIX)
		return K_COUNT;
	for (int k = 0; k < K_COUNT; k++)
		if (!strcmp(dot + 1, arch_key_names[k])) {
			*ret_prefix = (size_t)(dot - key);
			return (enum arch_key)k;
		}
	return K_COUNT;
}

/* Reads a value wanted as a number: a scalar, or a per-layer array of numbers. */
static int read_candidate(struct gguf_state *s, const char *key, size_t prefix, enum arch_key k,
			  uint32_t type)
{
	struct cursor *c = &s->c;
	if (s->n_cands >= GGUF_MAX_CANDIDATES)
		return skip_value(c, type, 0);
	struct candidate *cand = &s->cands[s->n_cands];
	memset(cand, 0, sizeof(*cand));
	memcpy(cand->prefix, key, prefix);
	cand->key = k;
	int r;
	if (type < GGUF_TYPE_COUNT && type != GGUF_STRING && type != GGUF_ARRAY) {
		if ((r = read_scalar(c, type, &cand->scalar)) < 0)
			return r;
		cand->not_whole = r > 0;
		s->n_cands++;
		return 0;
	}
	if (type != GGUF_ARRAY) {
		/* A string where a number belongs: kept, to be said as such rather than as missing. */
		cand->not_whole = true;
		s->n_cands++;
		return skip_value(c, type, 0);
	}
	uint32_t etype;
	uint64_t count;
	uint64_t at = c->pos;
	if ((r = cur_u32(c, &etype, "an array's type")) < 0 || (r = cur_u64(c, &count, "an array's length")) < 0)
		return r;
	if (!is_number(etype) || count > MODEL_MAX_LAYERS) {
		/* Not a per-layer array of numbers: skipped whole. */
		c->pos = at;
		return skip_value(c, GGUF_ARRAY, 0);
	}
	if (count * gguf_type_size[etype] > c->end - c->pos || !fits(c, count * gguf_type_size[etype]))
		return truncated(c, "an array", count * gguf_type_size[etype]);
	cand->array = malloc((count ? count : 1) * sizeof(*cand->array));
	if (!cand->array)
		return -ENOMEM;
	cand->n = (uint32_t)count;
	s->n_cands++;
	for (uint32_t i = 0; i < cand->n; i++) {
		uint64_t v;
		if ((r = read_scalar(c, etype, &v)) < 0)
			return r;
		cand->not_whole |= r > 0;
		cand->array[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		if (v > cand->scalar)
			cand->scalar = v;
	}
	return 0;
}

static int read_string_value(struct gguf_state *s, uint32_t type, char *out, size_t size, const char *what)
{
	size_t len;
	if (type != GGUF_STRING)
		return model_fail(s->c.e, -EINVAL, "%s: %s is not a string (type %u) at offset %" PRIu64,
				  s->c.r->name, what, type, s->c.pos);
	/* Longer than kept: skipped, read as absent. */
	uint64_t at = s->c.pos, n;
	int r = cur_u64(&s->c, &n, what);
	if (r < 0)
		return r;
	s->c.pos = at;
	if (n >= size) {
		out[0] = '\0';
		return skip_string(&s->c, what);
	}
	return cur_string(&s->c, out, size - 1, &len, what);
}

static int read_kv(struct gguf_state *s)
{
	struct cursor *c = &s->c;
	char key[65536];
	size_t len, prefix;
	uint32_t type;
	uint64_t v;
	int r;

	if ((r = cur_string(c, key, sizeof(key) - 1, &len, "a metadata key")) < 0 ||
	    (r = cur_u32(c, &type, "a value's type")) < 0)
		return r;
	if (type >= GGUF_TYPE_COUNT)
		return model_fail(c->e, -EINVAL, "%s: key '%s' has a value of unknown type %u at offset %"
				  PRIu64, c->r->name, SHOWN(key), type, c->pos - 4);
	if (!strcmp(key, "general.architecture"))
		return read_string_value(s, type, s->architecture, sizeof(s->architecture), key);
	if (!strcmp(key, "general.name"))
		return read_string_value(s, type, s->name, sizeof(s->name), key);
	if (!strcmp(key, "general.alignment") || !strcmp(key, "split.no") || !strcmp(key, "split.count") ||
	    !strcmp(key, "split.tensors.count")) {
		if (!is_number(type))
			return model_fail(c->e, -EINVAL, "%s: %s is not an integer (type %u)", c->r->name, key, type);
		if ((r = read_scalar(c, type, &v)) < 0)
			return r;
		if (!strcmp(key, "general.alignment")) {
			if (v == 0 || v > (1u << 20) || (v & (v - 1)))
				return model_fail(c->e, -EINVAL, "%s: general.alignment %" PRIu64
						  " is not a power of two up to 1 MiB", c->r->name, v);
			s->alignment = (uint32_t)v;
		} else if (!strcmp(key, "split.no")) {
			s->split_no = v, s->has_split_no = true;
		} else if (!strcmp(key, "split.count")) {
			s->split_count = v, s->has_split_count = true;
		} else {
			s->split_tensors = v, s->has_split_tensors = true;
		}
		return 0;
	}
	if (!strcmp(key, "tokenizer.ggml.tokens") && type == GGUF_ARRAY) {
		uint64_t at = c->pos;
		uint32_t etype;
		if ((r = cur_u32(c, &etype, "an array's type")) < 0 || (r = cur_u64(c, &s->n_tokens, "an array's length")) < 0)
			return r;
		c->pos = at;
		return skip_value(c, type, 0);
	}
	enum arch_key k = match_arch_key(key, len, &prefix);
	if (k != K_COUNT)
		return read_candidate(s, key, prefix, k, type);
	return skip_value(c, type, 0);
}

/* The value of {architecture}.KEY: its candidate, or NULL. */
static const struct candidate *arch_value(const struct gguf_state *s, enum arch_key k)
{
	for (size_t i = 0; i < s->n_cands; i++)
		if (s->cands[i].key == k && !strcmp(s->cands[i].prefix, s->architecture))
			return &s->cands[i];
	return NULL;
}

static uint64_t arch_scalar(const struct gguf_state *s, enum arch_key k, uint64_t fallback)
{
	const struct candidate *cand = arch_value(s, k);
	return cand ? cand->scalar : fallback;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The header up to the tensor infos: magic, version, counts, metadata. */
static int read_header(struct gguf_state *s, uint64_t *ret_tensors)
{
	struct cursor *c = &s->c;
	uint8_t magic[4];
	uint32_t version;
	uint64_t n_kv;
	int r;

	if ((r = model_fail_if_lfs_pointer(c->r, c->e)) < 0)
		return r;
	if (c->r->size < 4 || (r = cur_read(c, magic, 4, "the magic")) < 0 || memcmp(magic, "GGUF", 4))
		return model_fail(c->e, -EINVAL, "%s: not a GGUF file (no GGUF magic)", c->r->name);
	if ((r = cur_u32(c, &version, "the version")) < 0)
		return r;
	if (version == 1)
		return model_fail(c->e, -ENOTSUP, "%s: GGUF version 1, which hmn does not read (only 2 and 3)",
				  c->r->name);
	if (version != 2 && version != 3) {
		if (version >= 0x01000000u)
			return model_fail(c->e, -ENOTSUP, "%s: a big-endian GGUF; hmn reads little-endian ones",
					  c->r->name);
		return model_fail(c->e, -ENOTSUP, "%s: GGUF version %u, which hmn does not read (only 2 and 3)",
				  c->r->name, version);
	}
	if ((r = cur_u64(c, ret_tensors, "the tensor count")) < 0 || (r = cur_u64(c, &n_kv, "the metadata count")) < 0)
		return r;
	/* A tensor info takes at least 28 bytes, a key and value at least 13. */
	if (*ret_tensors > MODEL_MAX_TENSORS || *ret_tensors > (c->end - c->pos) / 28)
		return model_fail(c->e, -EINVAL, "%s: %" PRIu64 " tensor%s claimed in a header of %" PRIu64
				  " bytes", c->r->name, *ret_tensors, *ret_tensors == 1 ? "" : "s", c->r->size);
	if (n_kv > GGUF_MAX_KV || n_kv > (c->end - c->pos) / 13)
		return model_fail(c->e, -EINVAL, "%s: %" PRIu64 " metadata key%s claimed in a header of %" PRIu64
				  " bytes", c->r->name, n_kv, n_kv == 1 ? "" : "s", c->r->size);
	for (uint64_t i = 0; i < n_kv; i++)
		if ((r = read_kv(s)) < 0)
			return r;
	return 0;
}

/* The tensor infos of one part, summed into b; checks each one's data lies in the file. */
static int read_tensors(struct gguf_state *s, struct model_build *b, uint64_t n_tensors)
{
	struct cursor *c = &s->c;
	char name[GGUF_MAX_NAME + 1];
	uint64_t max_end = 0, next = 0;
	char max_name[GGUF_MAX_NAME + 1] = "";
	size_t len;
	int r;

	for (uint64_t i = 0; i < n_tensors; i++) {
		uint64_t at = c->pos, dims[4], offset, bytes;
		uint32_t n_dims, type;
		if ((r = cur_string(c, name, GGUF_MAX_NAME, &len, "a tensor's name")) < 0 ||
		    (r = cur_u32(c, &n_dims, "a tensor's dimensions")) < 0)
			return r;
		if (n_dims > 4)
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' at offset %" PRIu64 " has %u dimensions"
					  " (at most 4)", c->r->name, SHOWN(name), at, n_dims);
		for (uint32_t d = 0; d < n_dims; d++) {
			if ((r = cur_u64(c, &dims[d], "a tensor's shape")) < 0)
				return r;
			if (dims[d] > INT64_MAX)
				return model_fail(c->e, -EINVAL, "%s: tensor '%s' has a dimension of %" PRIu64,
						  c->r->name, SHOWN(name), dims[d]);
		}
		if ((r = cur_u32(c, &type, "a tensor's type")) < 0 || (r = cur_u64(c, &offset, "a tensor's offset")) < 0)
			return r;
		if (!dtype_is_ggml(type))
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' has ggml type %u, which hmn does not know"
					  " (a newer llama.cpp's?)", c->r->name, SHOWN(name), type);
		r = hmn_tensor_bytes((enum hmn_dtype)type, dims, n_dims, &bytes);
		if (r == -EOVERFLOW)
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' is larger than 2^64 bytes", c->r->name, SHOWN(name));
		if (r < 0)
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' of type %s has rows of %" PRIu64
					  " elements, not whole blocks", c->r->name, SHOWN(name),
					  hmn_dtype_name((enum hmn_dtype)type), n_dims ? dims[0] : 1);
		/*
		 * ggml's gguf.cpp lays the tensors out one after another, each
		 * padded to the alignment, and refuses a file whose offsets say
		 * otherwise: tensors that overlap or share bytes are not a model.
		 */
		if (offset != next)
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' at data offset %" PRIu64 ", not %" PRIu64
					  " where the tensors before it end: the file is broken or hostile",
					  c->r->name, SHOWN(name), offset, next);
		uint64_t end, padded = bytes + (s->alignment - bytes % s->alignment) % s->alignment;
		if (add_overflows(offset, bytes, &end) || padded < bytes || add_overflows(next, padded, &next))
			return model_fail(c->e, -EINVAL, "%s: tensor '%s' ends past 2^64", c->r->name, SHOWN(name));
		if (end > max_end) {
			max_end = end;
			memcpy(max_name, name, len + 1);
		}
		if ((r = model_build_tensor(b, name, len, (enum hmn_dtype)type, dims, n_dims, padded)) < 0)
			return r == -EFBIG ? model_fail(c->e, -EINVAL, "%s: more than %u tensors", c->r->name,
							MODEL_MAX_TENSORS)
					   : model_fail(c->e, r, "%s: tensor '%s': %s", c->r->name, SHOWN(name), strerror(-r));
	}
	uint64_t data = c->pos + (s->alignment - c->pos % s->alignment) % s->alignment;
	if (max_end > c->r->size || data > c->r->size - max_end)
		return model_fail(c->e, -EINVAL, "%s: truncated GGUF: tensor '%s' ends at byte %" PRIu64
				  " of a %" PRIu64 "-byte file", c->r->name, SHOWN(max_name), data + max_end, c->r->size);
	return 0;
}

static void state_init(struct gguf_state *s, const struct reader *r, struct model_error *e,
		       struct candidate *cands)
{
	memset(s, 0, sizeof(*s));
	s->c.r = r;
	s->c.e = e;
	s->c.end = r->size < GGUF_MAX_HEADER ? r->size : GGUF_MAX_HEADER;
	s->alignment = 32;
	s->cands = cands;
}

static void state_clear(struct gguf_state *s)
{
	for (size_t i = 0; i < s->n_cands; i++)
		free(s->cands[i].array);
	s->n_cands = 0;
}

/* From the first part's metadata: the shape the estimate needs. */
static int apply_metadata(const struct gguf_state *s, struct hmn_model *m, struct model_error *e)
{
	const char *file = s->c.r->name;
	char architecture[GGUF_MAX_PREFIX];
	if (!s->architecture[0])
		return model_fail(e, -EINVAL, "%s: no general.architecture in the GGUF metadata", file);
	/*
	 * Kept printable, as a config.json's model_type is: the model's
	 * architecture is shown in titles and warnings. The keys are matched
	 * against the name as the file spells it (s->architecture).
	 */
	m->architecture = arena_strdup(m->arena, printable_name(s->architecture, architecture, sizeof(architecture)));
	m->name = s->name[0] ? arena_strdup(m->arena, s->name) : NULL;
	uint64_t layers = arch_scalar(s, K_BLOCK_COUNT, 0);
	if (layers > MODEL_MAX_LAYERS)
		return model_fail(e, -EINVAL, "%s: %s.block_count is %" PRIu64 ", more than %u layers", file,
				  m->architecture, layers, MODEL_MAX_LAYERS);
	m->n_layer = (uint32_t)layers;
	m->context_length = arch_scalar(s, K_CONTEXT, 0);
	m->n_embd = clamp32(arch_scalar(s, K_EMBD, 0));
	m->n_ff = clamp32(arch_scalar(s, K_FF, 0));
	m->n_head = clamp32(arch_scalar(s, K_HEAD, 0));
	m->n_head_kv = clamp32(arch_scalar(s, K_HEAD_KV, m->n_head));
	uint32_t head_dim = m->n_head ? m->n_embd / m->n_head : 0;
	m->key_length = clamp32(arch_scalar(s, K_KEY_LEN, head_dim));
	m->value_length = clamp32(arch_scalar(s, K_VALUE_LEN, head_dim));
	m->kv_lora_rank = clamp32(arch_scalar(s, K_KV_LORA, 0));
	m->rope_dim = clamp32(arch_scalar(s, K_ROPE_DIM, 0));
	m->sliding_window = clamp32(arch_scalar(s, K_SWA, 0));
	m->n_expert = clamp32(arch_scalar(s, K_EXPERTS, 0));
	m->n_expert_used = clamp32(arch_scalar(s, K_EXPERTS_USED, 0));
	m->n_ff_expert = clamp32(arch_scalar(s, K_FF_EXPERT, m->n_expert ? m->n_ff : 0));
	m->n_shared_expert = clamp32(arch_scalar(s, K_SHARED_EXPERTS, 0));
	m->n_vocab = clamp32(arch_scalar(s, K_VOCAB, s->n_tokens));
	m->ssm_conv = clamp32(arch_scalar(s, K_SSM_CONV, 0));
	m->ssm_inner = clamp32(arch_scalar(s, K_SSM_INNER, 0));
	m->ssm_state = clamp32(arch_scalar(s, K_SSM_STATE, 0));
	m->ssm_group = clamp32(arch_scalar(s, K_SSM_GROUP, 0));
	return 0;
}

/*
 * What each {arch}.* key may hold, as config.json's keys are checked (the
 * same bounds): whole numbers in [min, max], an array's largest element
 * for a per-layer one (a layer without attention has 0 heads). The keys
 * every transformer has are needed; a recurrent model needs only its
 * layers and width (Mamba writes 0 heads and no feed-forward).
 */
enum need { OPTIONAL, NEEDED, NEEDED_FOR_ATTENTION };

static const struct key_rule {
	enum arch_key key;
	uint64_t min, max;
	enum need need;
} key_rules[] = {
	{ K_BLOCK_COUNT, 1, MODEL_MAX_LAYERS, NEEDED },
	{ K_EMBD, 1, MODEL_MAX_WIDTH, NEEDED },
	{ K_HEAD, 1, MODEL_MAX_WIDTH, NEEDED_FOR_ATTENTION },
	{ K_FF, 1, MODEL_MAX_WIDTH, NEEDED_FOR_ATTENTION },
	/* Absent, hmn fit asks for --context. */
	{ K_CONTEXT, 1, MODEL_MAX_CONTEXT, OPTIONAL },
	{ K_HEAD_KV, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_KEY_LEN, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_VALUE_LEN, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_KEY_LEN_MLA, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_VALUE_LEN_MLA, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_KV_LORA, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SWA, 0, UINT32_MAX, OPTIONAL },
	{ K_SWA_PATTERN, 0, MODEL_MAX_LAYERS, OPTIONAL },
	{ K_EXPERTS, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_EXPERTS_USED, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_FF_EXPERT, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SHARED_EXPERTS, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_VOCAB, 1, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_ROPE_DIM, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SSM_CONV, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SSM_INNER, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SSM_STATE, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_SSM_GROUP, 0, MODEL_MAX_WIDTH, OPTIONAL },
	{ K_FULL_ATTENTION, 1, MODEL_MAX_LAYERS, OPTIONAL },
};
/* Every key the estimate reads is checked before it is used: a new one needs its rule. */
_Static_assert(sizeof(key_rules) / sizeof(key_rules[0]) == K_COUNT, "a rule for each {arch}.* key");

/* One key against its rule: said naming it, as {arch}.KEY. */
static int check_key(const struct gguf_state *s, const struct key_rule *rule, bool attention, struct model_error *e)
{
	const struct candidate *v = arch_value(s, rule->key);
	const char *file = s->c.r->name, *arch = s->architecture, *key = arch_key_names[rule->key];
	bool needed = rule->need == NEEDED || (rule->need == NEEDED_FOR_ATTENTION && attention);
	uint64_t min = rule->need == NEEDED_FOR_ATTENTION && !attention ? 0 : rule->min;

	if (!v)
		return needed ? model_fail(e, -EINVAL, "%s: %s.%s is missing", file, arch, key) : 0;
	if (v->not_whole)
		return model_fail(e, -EINVAL, "%s: %s.%s is not a whole number of %" PRIu64 " or more (a negative"
				  " number, a float or a string)", file, arch, key, min);
	if (v->scalar < min)
		return model_fail(e, -EINVAL, "%s: %s.%s: %" PRIu64 " is not a whole number of %" PRIu64 " or more",
				  file, arch, key, v->scalar, min);
	if (v->scalar > rule->max)
		return model_fail(e, -EINVAL, "%s: %s.%s: %" PRIu64 " is more than %" PRIu64, file, arch, key,
				  v->scalar, rule->max);
	return 0;
}

/* A per-layer value: the array's for layer i when it has one for each layer, else the scalar. */
static uint64_t layer_value(const struct candidate *v, uint32_t i, uint64_t layers)
{
	return v->array && v->n == layers ? v->array[i] : v->scalar;
}

/*
 * The KV heads divide the heads layer by layer (model_check_kv_heads),
 * where either is an array. An array of the wrong length is
 * check_layer_arrays' to refuse.
 */
static int check_kv_heads(const struct gguf_state *s, const struct shape_names *names, struct model_error *e)
{
	const struct candidate *heads = arch_value(s, K_HEAD), *kv = arch_value(s, K_HEAD_KV);
	uint64_t layers = arch_scalar(s, K_BLOCK_COUNT, 0);
	int r;
	if (!heads || !kv)
		return 0;
	for (uint32_t i = 0; i < layers; i++) {
		uint64_t h = layer_value(heads, i, layers), k = layer_value(kv, i, layers);
		if ((r = model_check_kv_heads(names, h, k, kv->array || heads->array ? (long)i : -1, e)) < 0)
			return r;
	}
	return 0;
}

/*
 * After the structure, the shape: the metadata of a file whose tensors
 * check out must describe a model. Read as 0, a key it lacks gave no KV
 * cache and a confident "fits". The checks config.json's shape has, on
 * GGUF's keys; a structural error (truncation, a missing part) is said
 * first, as it is the more basic one.
 */
static int check_metadata(const struct gguf_state *s, struct model_error *e)
{
	const struct arch_info *info = arch_find_gguf(s->architecture);
	/* A recurrent state instead of, or beside, attention: Mamba, RWKV, the hybrids' ssm.* layers. */
	bool attention = !(info && info->recurrent) && !arch_value(s, K_SSM_STATE);
	char prefix[GGUF_MAX_PREFIX + 1];
	snprintf(prefix, sizeof(prefix), "%s.", s->architecture);
	const struct shape_names names = {
		.file = s->c.r->name, .prefix = prefix, .heads = arch_key_names[K_HEAD],
		.kv_heads = arch_key_names[K_HEAD_KV], .width = arch_key_names[K_EMBD],
		.head_dim = arch_key_names[K_KEY_LEN], .experts_used = arch_key_names[K_EXPERTS_USED],
	};
	int r;

	for (size_t i = 0; i < sizeof(key_rules) / sizeof(key_rules[0]); i++)
		if ((r = check_key(s, &key_rules[i], attention, e)) < 0)
			return r;
	if ((r = check_kv_heads(s, &names, e)) < 0)
		return r;
	/* A model without attention has no heads to split its width. */
	uint64_t heads = arch_scalar(s, K_HEAD, 0), width = arch_scalar(s, K_EMBD, 0);
	bool key_length = arch_value(s, K_KEY_LEN) != NULL, latent = arch_scalar(s, K_KV_LORA, 0) != 0;
	if (attention && (r = model_check_heads_split(&names, heads, width, key_length, latent, e)) < 0)
		return r;
	uint64_t experts = arch_scalar(s, K_EXPERTS, 0), used = arch_scalar(s, K_EXPERTS_USED, 0);
	return model_check_experts(&names, experts, used, e);
}

/*
 * A per-layer array has a value for each layer, or the file is broken
 * (llama.cpp refuses "wrong array length"); padding it would invent layers
 * without a cache.
 */
static int check_layer_arrays(const struct gguf_state *s, const struct hmn_model *m, struct model_error *e)
{
	for (size_t i = 0; i < s->n_cands; i++) {
		const struct candidate *c = &s->cands[i];
		if (c->array && c->n != m->n_layer && !strcmp(c->prefix, s->architecture))
			return model_fail(e, -EINVAL, "%s: %s.%s has %u value%s for %u layer%s", s->c.r->name,
					  SHOWN(c->prefix), arch_key_names[c->key], c->n, c->n == 1 ? "" : "s",
					  m->n_layer, m->n_layer == 1 ? "" : "s");
	}
	return 0;
}

/*
 * The hybrids' layers where llama.cpp's rule is not "no KV heads, a state"
 * (arch_info.gguf_recurrent): Nemotron-H's MLP and mixture layers keep
 * nothing, Qwen3-Next's gated DeltaNet layers (all but every
 * full_attention_interval-th, 4 where the file says none) a state,
 * Falcon-H1's every layer a cache and a state.
 */
static void hybrid_layers(const struct gguf_state *s, struct hmn_model *m, const struct arch_info *arch)
{
	if (!arch)
		return;
	const struct candidate *ff = arch_value(s, K_FF);
	uint64_t every = arch_scalar(s, K_FULL_ATTENTION, 4);
	for (uint32_t i = 0; i < m->n_layer; i++) {
		struct hmn_model_layer *l = &m->layers[i];
		switch (arch->gguf_recurrent) {
		case RECURRENT_NO_KV_NO_FF:
			/* Per layer only: a scalar feed-forward says nothing of which layers have one. */
			if (l->n_head_kv == 0 && ff && ff->array && layer_value(ff, i, m->n_layer) != 0)
				l->kind = HMN_LAYER_NO_CACHE;
			break;
		case RECURRENT_INTERVAL:
			if ((i + 1) % every != 0) {
				l->kind = HMN_LAYER_RECURRENT;
				l->n_head_kv = 0;
			}
			break;
		case RECURRENT_BESIDE:
			l->state = l->kind != HMN_LAYER_RECURRENT;
			break;
		default:
			break;
		}
	}
}

/* Per-layer values, once the layers exist: KV heads and the sliding pattern. */
static void apply_layers(const struct gguf_state *s, struct hmn_model *m, const struct arch_info *arch)
{
	const struct candidate *kv = arch_value(s, K_HEAD_KV);
	if (kv && kv->array)
		for (uint32_t i = 0; i < m->n_layer; i++)
			m->layers[i].n_head_kv = kv->array[i]; /* kv->n == n_layer: checked */
	/* An encoder (BERT) keeps no K and V (llama.cpp makes no cache for one) and scores no vocabulary. */
	if (arch && arch->encoder) {
		for (uint32_t i = 0; i < m->n_layer; i++)
			m->layers[i].n_head_kv = 0;
		m->n_vocab = 0;
	}
	const struct candidate *pattern = arch_value(s, K_SWA_PATTERN);
	uint32_t every = arch ? arch->swa_pattern : 0;
	bool *swa = NULL;
	size_t n_swa = 0;
	if (pattern && pattern->array) {
		swa = calloc(pattern->n ? pattern->n : 1, sizeof(*swa));
		if (swa) {
			for (uint32_t i = 0; i < pattern->n; i++)
				swa[i] = pattern->array[i] != 0;
			n_swa = pattern->n;
		}
	} else if (pattern && pattern->scalar && pattern->scalar <= MODEL_MAX_LAYERS) {
		every = (uint32_t)pattern->scalar;
	}
	model_set_layer_kinds(m, arch && arch->recurrent, every, swa, n_swa);
	free(swa);
	hybrid_layers(s, m, arch);
}

/* Five digits at *p, no fewer: their number, and *p past them. */
static bool five_digits(const char **p, uint64_t *ret)
{
	const char *start = *p;
	return parse_decimal(p, start + 5, 99999, ret) && *p == start + 5;
}

unsigned model_split_name(const char *path, const char *ext, size_t *ret_prefix_len)
{
	/* NAME-00001-of-00003.gguf, NAME-00001-of-00003.safetensors: five digits each, as the writers make. */
	size_t n = strlen(path), k = strlen(ext), tail = strlen("-00001-of-00003") + k;
	if (n < tail || strcmp(path + n - k, ext))
		return 0;
	const char *start = path + n - tail, *p = start + 1;
	uint64_t no, count;
	if (*start != '-' || !five_digits(&p, &no) || strncmp(p, "-of-", 4))
		return 0;
	p += 4;
	if (!five_digits(&p, &count) || !count || !no || no > count)
		return 0;
	*ret_prefix_len = (size_t)(start - path);
	return (unsigned)count;
}

char *model_split_part(const char *name, size_t prefix_len, unsigned part, unsigned count, const char *ext)
{
	size_t size = prefix_len + strlen(ext) + 32;
	char *p = malloc(size);
	if (p) {
		memcpy(p, name, prefix_len);
		snprintf(p + prefix_len, size - prefix_len, "-%05u-of-%05u%s", part, count, ext);
	}
	return p;
}

static struct gguf_state *state_new(void)
{
	struct gguf_state *s = malloc(sizeof(*s));
	struct candidate *cands = malloc(GGUF_MAX_CANDIDATES * sizeof(*cands));
	if (!s || !cands) {
		free(s);
		free(cands);
		return NULL;
	}
	s->cands = cands;
	s->n_cands = 0;
	return s;
}

static struct gguf_state *state_free(struct gguf_state *s)
{
	if (s) {
		state_clear(s);
		free(s->cands);
		free(s);
	}
	return NULL;
}

/* Part i's key (split.no, split.count) is there and says want. */
static int split_key_is(const struct reader *parts, size_t i, const char *key, bool has, uint64_t value,
			uint64_t want, struct model_error *e)
{
	if (!has)
		return model_fail(e, -EINVAL, "%s: no %s: not part %zu of %s", parts[i].name, key, i + 1,
				  parts[0].name);
	if (value != want)
		return model_fail(e, -EINVAL, "%s: %s is %" PRIu64 ", not %" PRIu64 ": not part %zu of %s",
				  parts[i].name, key, value, want, i + 1, parts[0].name);
	return 0;
}

/* One part: its header, and its tensors into b. The first part's metadata is the model's. */
static int read_part(struct gguf_state *s, const struct reader *parts, size_t n, size_t i,
		     struct model_build *b, uint64_t *ret_declared, struct model_error *e)
{
	uint64_t n_tensors = 0;
	int r;

	state_init(s, &parts[i], e, s->cands);
	if ((r = read_header(s, &n_tensors)) < 0)
		return r;
	if (i == 0) {
		if ((r = apply_metadata(s, b->m, e)) < 0)
			return r;
		uint64_t count = s->has_split_count ? s->split_count : 1;
		if (count > n)
			return model_fail(e, -ENOENT, "%s: a split GGUF of %" PRIu64 " parts, %zu found",
					  parts[0].name, count, n);
		if (count < n)
			return model_fail(e, -EINVAL, "%s: split.count is %" PRIu64 ", not %zu", parts[0].name,
					  count, n);
		*ret_declared = s->has_split_tensors ? s->split_tensors : n_tensors;
	}
	/* llama.cpp refuses parts that do not say which they are of how many: another model's file. */
	if (n > 1 && (r = split_key_is(parts, i, "split.no", s->has_split_no, s->split_no, i, e)) < 0)
		return r;
	if (i > 0 && (r = split_key_is(parts, i, "split.count", s->has_split_count, s->split_count, n, e)) < 0)
		return r;
	if ((r = read_tensors(s, b, n_tensors)) < 0)
		return r;
	return (int)(n_tensors > INT32_MAX ? INT32_MAX : n_tensors);
}

int gguf_read(const struct reader *parts, size_t n, struct hmn_model **ret_model,
	      struct model_error *e)
{
	struct gguf_state *first = state_new(), *other = state_new();
	struct model_build b;
	uint64_t total = 0, declared = 0;
	int r = -ENOMEM;

	if (!first || !other || (r = model_build_start(&b, NULL)) < 0)
		goto out;
	struct hmn_model *m = b.m;
	m->format = HMN_MODEL_GGUF;
	m->n_files = n;
	m->path = arena_strdup(m->arena, parts[0].name);
	for (size_t i = 0; i < n; i++) {
		struct gguf_state *s = i ? other : first;
		state_clear(s);
		if ((r = read_part(s, parts, n, i, &b, &declared, e)) < 0)
			goto fail;
		total += (uint64_t)r;
	}
	/* llama.cpp's mmproj-*.gguf: loaded beside a model (--mmproj), never as one. */
	if (!strcmp(first->architecture, "clip")) {
		r = model_fail(e, -EINVAL, "%s: a vision model's projector (general.architecture clip), not a model:"
			       " fit the model it serves, or the folder holding both", parts[0].name);
		goto fail;
	}
	/* A vocabulary-only file (llama.cpp ships them) prices at 0 bytes: no model to fit. */
	if (!total) {
		r = model_fail(e, -EINVAL, "%s: holds no tensors (a vocabulary-only GGUF?): no weights to price",
			       parts[0].name);
		goto fail;
	}
	if ((r = model_build_check_parameters(&b, parts[0].name, e)) < 0 ||
	    (r = model_build_check_names(&b, parts[0].name, e)) < 0)
		goto fail;
	if (total != declared) {
		r = model_fail(e, -EINVAL, "%s: split.tensors.count is %" PRIu64 ", the parts hold %" PRIu64,
			       parts[0].name, declared, total);
		goto fail;
	}
	if ((r = check_metadata(first, e)) < 0 || (r = model_build_finish(&b, e)) < 0 ||
	    (r = check_layer_arrays(first, m, e)) < 0)
		goto fail;
	const struct arch_info *arch = arch_find_gguf(m->architecture);
	if (!arch)
		m->sliding_window = 0; /* an upper bound: no layer assumed to slide */
	apply_layers(first, m, arch);
	m->learned_positions = arch && arch->positions;
	if (!arch)
		model_warn_unknown_architecture(m, "architecture", "their headers");
	*ret_model = m;
	r = 0;
	goto out;
fail:
	model_build_abort(&b);
out:
	state_free(first);
	state_free(other);
	return r;
}

int gguf_read_projector(const struct reader *r, struct hmn_model *m, struct model_error *e)
{
	struct gguf_state *s = state_new();
	struct model_build b;
	uint64_t n_tensors = 0;
	int k = -ENOMEM;

	if (!s || (k = model_build_start(&b, NULL)) < 0)
		goto out;
	b.all_vision = true;
	state_init(s, r, e, s->cands);
	if ((k = read_header(s, &n_tensors)) < 0)
		goto fail;
	/* llama.cpp's clip.cpp loads only what convert_hf_to_gguf.py's --mmproj writes: general.architecture "clip". */
	if (strcmp(s->architecture, "clip")) {
		char arch[GGUF_MAX_PREFIX];
		k = model_fail(e, -EINVAL, "%s: general.architecture is '%s', not 'clip': not a vision projector",
			       r->name, s->architecture[0] ? printable_name(s->architecture, arch, sizeof(arch)) : "");
		goto fail;
	}
	if (!n_tensors) {
		k = model_fail(e, -EINVAL, "%s: a vision projector that holds no tensors", r->name);
		goto fail;
	}
	if ((k = read_tensors(s, &b, n_tensors)) < 0 || (k = model_build_check_parameters(&b, r->name, e)) < 0 ||
	    (k = model_build_check_names(&b, r->name, e)) < 0)
		goto fail;
	/* Each sum is at most the file's size (read_tensors checked the tensors lie in it): no wrap on adding. */
	const struct hmn_model_layer *v = &b.m->vision;
	if (add_overflows(m->weights_bytes, v->weights_bytes, &m->weights_bytes) ||
	    add_overflows(m->parameters, b.parameters, &m->parameters)) {
		k = model_fail(e, -EINVAL, "%s: the model and its projector pass 2^64 bytes", r->name);
		goto fail;
	}
	m->vision.weights_bytes += v->weights_bytes;
	m->vision.matrix_elements += v->matrix_elements;
	m->vision.vector_bytes += v->vector_bytes;
	m->vision_parameters += b.parameters;
	m->n_tensors += b.m->n_tensors;
	m->n_files++;
	k = 0;
fail:
	model_build_abort(&b);
out:
	state_free(s);
	return k;
}
