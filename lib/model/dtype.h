/*
 * lib/model: the lowest of it — tensor element types (model/dtype.c) and
 * the checked arithmetic every size in model/ is made with. It needs the
 * public types alone: the readers, the builder and the estimate are built
 * on it, never the other way.
 */
#ifndef HMN_MODEL_DTYPE_H
#define HMN_MODEL_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "hmn-model.h"

static inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_mul_overflow(a, b, ret);
}

static inline bool add_overflows(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_add_overflow(a, b, ret);
}

/* Saturating arithmetic for the estimate: HMN_UNKNOWN stays unknown. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return a == HMN_UNKNOWN || b == HMN_UNKNOWN || add_overflows(a, b, &r) ? HMN_UNKNOWN : r;
}

static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return a == HMN_UNKNOWN || b == HMN_UNKNOWN || mul_overflows(a, b, &r) ? HMN_UNKNOWN : r;
}

/* A shape's products of three and four numbers, as saturating as sat_mul. */
#define MUL3(a, b, c) sat_mul(sat_mul(a, b), c)
#define MUL4(a, b, c, d) sat_mul(MUL3(a, b, c), d)

bool dtype_is_ggml(uint32_t id);
bool dtype_is_float(enum hmn_dtype dtype);
/* A safetensors header's dtype ("BF16", "F8_E4M3"): false for one the format does not define. */
bool dtype_from_safetensors(const char *name, enum hmn_dtype *ret_dtype);
/* A llama.cpp file type's default tensor type (Q4_K_M: q4_k); HMN_DTYPE_NONE for any other value. */
enum hmn_dtype dtype_file_type_base(enum hmn_dtype ftype);
/* elements in dtype, blocks rounded up; HMN_UNKNOWN for no such type or overflow. */
uint64_t dtype_price(enum hmn_dtype dtype, uint64_t elements);

#endif
