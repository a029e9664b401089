/* Tensor element types: ggml's block sizes and safetensors' bits, and a tensor's bytes. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "model/dtype.h"

struct dtype_info {
	enum hmn_dtype dtype;
	const char *name;         /* hmn's, ggml's in lower case */
	const char *safetensors;  /* the safetensors format's spelling; NULL: not one of its types */
	uint32_t block;           /* elements a block holds */
	uint32_t bytes;           /* bytes a block takes */
	bool is_float;            /* a type activations and a KV cache can be kept in */
};

/*
 * ggml.c's type traits (block size, type size) and safetensors' bits. The
 * one table of types: a safetensors header's dtype is looked up here too,
 * by the format's own spelling, exactly (safetensors writes "BF16", never
 * "bf16"; a ggml type or --dtype's words in a header are no type of it).
 * In the order of the ids: dtype_find() searches it in halves.
 */
static const struct dtype_info dtypes[] = {
	{ HMN_DTYPE_F32, "f32", "F32", 1, 4, true },
	{ HMN_DTYPE_F16, "f16", "F16", 1, 2, true },
	{ HMN_DTYPE_Q4_0, "q4_0", NULL, 32, 18, false },
	{ HMN_DTYPE_Q4_1, "q4_1", NULL, 32, 20, false },
	{ HMN_DTYPE_Q5_0, "q5_0", NULL, 32, 22, false },
	{ HMN_DTYPE_Q5_1, "q5_1", NULL, 32, 24, false },
	{ HMN_DTYPE_Q8_0, "q8_0", NULL, 32, 34, false },
	{ HMN_DTYPE_Q8_1, "q8_1", NULL, 32, 36, false },
	{ HMN_DTYPE_Q2_K, "q2_k", NULL, 256, 84, false },
	{ HMN_DTYPE_Q3_K, "q3_k", NULL, 256, 110, false },
	{ HMN_DTYPE_Q4_K, "q4_k", NULL, 256, 144, false },
	{ HMN_DTYPE_Q5_K, "q5_k", NULL, 256, 176, false },
	{ HMN_DTYPE_Q6_K, "q6_k", NULL, 256, 210, false },
	{ HMN_DTYPE_Q8_K, "q8_k", NULL, 256, 292, false },
	{ HMN_DTYPE_IQ2_XXS, "iq2_xxs", NULL, 256, 66, false },
	{ HMN_DTYPE_IQ2_XS, "iq2_xs", NULL, 256, 74, false },
	{ HMN_DTYPE_IQ3_XXS, "iq3_xxs", NULL, 256, 98, false },
	{ HMN_DTYPE_IQ1_S, "iq1_s", NULL, 256, 50, false },
	{ HMN_DTYPE_IQ4_NL, "iq4_nl", NULL, 32, 18, false },
	{ HMN_DTYPE_IQ3_S, "iq3_s", NULL, 256, 110, false },
	{ HMN_DTYPE_IQ2_S, "iq2_s", NULL, 256, 82, false },
	{ HMN_DTYPE_IQ4_XS, "iq4_xs", NULL, 256, 136, false },
	{ HMN_DTYPE_I8, "i8", "I8", 1, 1, false },
	{ HMN_DTYPE_I16, "i16", "I16", 1, 2, false },
	{ HMN_DTYPE_I32, "i32", "I32", 1, 4, false },
	{ HMN_DTYPE_I64, "i64", "I64", 1, 8, false },
	{ HMN_DTYPE_F64, "f64", "F64", 1, 8, true },
	{ HMN_DTYPE_IQ1_M, "iq1_m", NULL, 256, 56, false },
	{ HMN_DTYPE_BF16, "bf16", "BF16", 1, 2, true },
	{ HMN_DTYPE_TQ1_0, "tq1_0", NULL, 256, 54, false },
	{ HMN_DTYPE_TQ2_0, "tq2_0", NULL, 256, 66, false },
	{ HMN_DTYPE_MXFP4, "mxfp4", NULL, 32, 17, false },
	{ HMN_DTYPE_BOOL, "bool", "BOOL", 1, 1, false },
	{ HMN_DTYPE_U8, "u8", "U8", 1, 1, false },
	{ HMN_DTYPE_U16, "u16", "U16", 1, 2, false },
	{ HMN_DTYPE_U32, "u32", "U32", 1, 4, false },
	{ HMN_DTYPE_U64, "u64", "U64", 1, 8, false },
	{ HMN_DTYPE_F8_E4M3, "f8_e4m3", "F8_E4M3", 1, 1, true },
	{ HMN_DTYPE_F8_E5M2, "f8_e5m2", "F8_E5M2", 1, 1, true },
	{ HMN_DTYPE_F8_E8M0, "f8_e8m0", "F8_E8M0", 1, 1, false },
	{ HMN_DTYPE_F8_E4M3FNUZ, "f8_e4m3fnuz", "F8_E4M3FNUZ", 1, 1, true },
	{ HMN_DTYPE_F8_E5M2FNUZ, "f8_e5m2fnuz", "F8_E5M2FNUZ", 1, 1, true },
	{ HMN_DTYPE_C64, "c64", "C64", 1, 8, false },
	{ HMN_DTYPE_F4, "f4", "F4", 2, 1, false },
	{ HMN_DTYPE_F6_E2M3, "f6_e2m3", "F6_E2M3", 4, 3, false },
	{ HMN_DTYPE_F6_E3M2, "f6_e3m2", "F6_E3M2", 4, 3, false },
	{ HMN_DTYPE_INT4, "int4", NULL, 2, 1, false },
};

/*
 * The bits a quantized checkpoint packs a weight in, where they are not 4
 * or 8 (GPTQ's 2 and 3, MLX's 3, 5 and 6, EXL2's mean): its weights' type
 * said as what it is, not as int4 or i8. Names only: no --dtype loads
 * them and no file's tensors are of them (hmn_dtype_from_name() does not
 * look here).
 */
static const struct dtype_info bit_widths[] = {
	{ HMN_DTYPE_INT2, "int2", NULL, 4, 1, false },
	{ HMN_DTYPE_INT3, "int3", NULL, 8, 3, false },
	{ HMN_DTYPE_INT5, "int5", NULL, 8, 5, false },
	{ HMN_DTYPE_INT6, "int6", NULL, 4, 3, false },
	{ HMN_DTYPE_INT7, "int7", NULL, 8, 7, false },
};

/* --dtype's words and other spellings of the same types. */
static const struct {
	const char *word;
	enum hmn_dtype dtype;
} aliases[] = {
	{ "fp32", HMN_DTYPE_F32 }, { "float32", HMN_DTYPE_F32 },
	{ "fp16", HMN_DTYPE_F16 }, { "float16", HMN_DTYPE_F16 }, { "half", HMN_DTYPE_F16 },
	{ "bfloat16", HMN_DTYPE_BF16 },
	{ "fp8", HMN_DTYPE_F8_E4M3 }, { "float8_e4m3fn", HMN_DTYPE_F8_E4M3 },
	{ "float8_e5m2", HMN_DTYPE_F8_E5M2 },
	{ "int8", HMN_DTYPE_I8 }, { "uint8", HMN_DTYPE_U8 },
	{ "float64", HMN_DTYPE_F64 }, { "fp64", HMN_DTYPE_F64 },
	{ "fp4", HMN_DTYPE_F4 },
};

/*
 * llama.cpp's file types, by llama-quantize's names (tools/quantize/
 * quantize.cpp's QUANT_OPTIONS), and the tensor type each defaults to
 * (llama-quant.cpp's llama_ftype_get_default_type()); model/ftype.c
 * gives each tensor its own. F16, BF16 and F32 are left out: as file
 * types they are the tensor types of those names.
 */
static const struct {
	enum hmn_dtype ftype;
	const char *name;         /* llama-quantize's, in lower case as hmn_dtype_name() says it */
	enum hmn_dtype base;      /* llama_ftype_get_default_type() */
} file_types[] = {
	{ HMN_DTYPE_FILE_Q4_0, "q4_0", HMN_DTYPE_Q4_0 },
	{ HMN_DTYPE_FILE_Q4_1, "q4_1", HMN_DTYPE_Q4_1 },
	{ HMN_DTYPE_FILE_MXFP4_MOE, "mxfp4_moe", HMN_DTYPE_MXFP4 },
	{ HMN_DTYPE_FILE_Q5_0, "q5_0", HMN_DTYPE_Q5_0 },
	{ HMN_DTYPE_FILE_Q5_1, "q5_1", HMN_DTYPE_Q5_1 },
	{ HMN_DTYPE_FILE_IQ2_XXS, "iq2_xxs", HMN_DTYPE_IQ2_XXS },
	{ HMN_DTYPE_FILE_IQ2_XS, "iq2_xs", HMN_DTYPE_IQ2_XS },
	{ HMN_DTYPE_FILE_IQ2_S, "iq2_s", HMN_DTYPE_IQ2_XS },
	{ HMN_DTYPE_FILE_IQ2_M, "iq2_m", HMN_DTYPE_IQ2_S },
	{ HMN_DTYPE_FILE_IQ1_S, "iq1_s", HMN_DTYPE_IQ1_S },
	{ HMN_DTYPE_FILE_IQ1_M, "iq1_m", HMN_DTYPE_IQ1_M },
	{ HMN_DTYPE_FILE_TQ1_0, "tq1_0", HMN_DTYPE_TQ1_0 },
	{ HMN_DTYPE_FILE_TQ2_0, "tq2_0", HMN_DTYPE_TQ2_0 },
	{ HMN_DTYPE_FILE_Q2_K, "q2_k", HMN_DTYPE_Q2_K },
	{ HMN_DTYPE_FILE_Q2_K_S, "q2_k_s", HMN_DTYPE_Q2_K },
	{ HMN_DTYPE_FILE_IQ3_XXS, "iq3_xxs", HMN_DTYPE_IQ3_XXS },
	{ HMN_DTYPE_FILE_IQ3_S, "iq3_s", HMN_DTYPE_IQ3_S },
	{ HMN_DTYPE_FILE_IQ3_M, "iq3_m", HMN_DTYPE_IQ3_S },
	{ HMN_DTYPE_FILE_IQ3_XS, "iq3_xs", HMN_DTYPE_IQ3_S },
	{ HMN_DTYPE_FILE_Q3_K_S, "q3_k_s", HMN_DTYPE_Q3_K },
	{ HMN_DTYPE_FILE_Q3_K_M, "q3_k_m", HMN_DTYPE_Q3_K },
	{ HMN_DTYPE_FILE_Q3_K_L, "q3_k_l", HMN_DTYPE_Q3_K },
	{ HMN_DTYPE_FILE_IQ4_NL, "iq4_nl", HMN_DTYPE_IQ4_NL },
	{ HMN_DTYPE_FILE_IQ4_XS, "iq4_xs", HMN_DTYPE_IQ4_XS },
	{ HMN_DTYPE_FILE_Q4_K_S, "q4_k_s", HMN_DTYPE_Q4_K },
	{ HMN_DTYPE_FILE_Q4_K_M, "q4_k_m", HMN_DTYPE_Q4_K },
	{ HMN_DTYPE_FILE_Q5_K_S, "q5_k_s", HMN_DTYPE_Q5_K },
	{ HMN_DTYPE_FILE_Q5_K_M, "q5_k_m", HMN_DTYPE_Q5_K },
	{ HMN_DTYPE_FILE_Q6_K, "q6_k", HMN_DTYPE_Q6_K },
	{ HMN_DTYPE_FILE_Q8_0, "q8_0", HMN_DTYPE_Q8_0 },
};
#define N_FILE_TYPES (sizeof(file_types) / sizeof(file_types[0]))

static int file_type_index(enum hmn_dtype ftype)
{
	for (size_t i = 0; i < N_FILE_TYPES; i++)
		if (file_types[i].ftype == ftype)
			return (int)i;
	return -1;
}

bool hmn_dtype_is_file_type(enum hmn_dtype dtype)
{
	return file_type_index(dtype) >= 0;
}

enum hmn_dtype dtype_file_type_base(enum hmn_dtype ftype)
{
	int i = file_type_index(ftype);
	return i < 0 ? HMN_DTYPE_NONE : file_types[i].base;
}

int hmn_weights_dtype_from_name(const char *name, enum hmn_dtype *ret_dtype)
{
	if (!name)
		return -EINVAL;
	/*
	 * llama-quantize's Q3_K, Q4_K and Q5_K are aliases of the _M mixes;
	 * hmn's contract keeps them the tensor types (--dtype q4_k: every
	 * matrix in Q4_K), so they are not looked up here.
	 */
	for (size_t i = 0; i < N_FILE_TYPES; i++)
		if (!strcasecmp(name, file_types[i].name)) {
			*ret_dtype = file_types[i].ftype;
			return 0;
		}
	return hmn_dtype_from_name(name, ret_dtype);
}

/*
 * dtypes[] is in the order of the ids: searched in halves, six steps at
 * most. hmn fit prices a KV cache a layer at a time some 4,000 times (the
 * largest context that fits, by bisection); going through the table one
 * by one to bf16, its 30th, was a quarter of hmn fit on a config.json.
 */
static const struct dtype_info *dtype_find(enum hmn_dtype dtype)
{
	size_t lo = 0, hi = sizeof(dtypes) / sizeof(dtypes[0]);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (dtypes[mid].dtype == dtype)
			return &dtypes[mid];
		if ((int)dtypes[mid].dtype < (int)dtype)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < sizeof(bit_widths) / sizeof(bit_widths[0]); i++)
		if (bit_widths[i].dtype == dtype)
			return &bit_widths[i];
	return NULL;
}

bool dtype_is_ggml(uint32_t id)
{
	return id < HMN_DTYPE_BOOL && dtype_find((enum hmn_dtype)id) != NULL;
}

bool dtype_from_safetensors(const char *name, enum hmn_dtype *ret_dtype)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (dtypes[i].safetensors && !strcmp(name, dtypes[i].safetensors)) {
			*ret_dtype = dtypes[i].dtype;
			return true;
		}
	return false;
}

bool dtype_is_float(enum hmn_dtype dtype)
{
	const struct dtype_info *d = dtype_find(dtype);
	return d && d->is_float;
}

int hmn_dtype_from_name(const char *name, enum hmn_dtype *ret_dtype)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcasecmp(name, dtypes[i].name)) {
			*ret_dtype = dtypes[i].dtype;
			return 0;
		}
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcasecmp(name, aliases[i].word)) {
			*ret_dtype = aliases[i].dtype;
			return 0;
		}
	return -EINVAL;
}

const char *hmn_dtype_name(enum hmn_dtype dtype)
{
	const struct dtype_info *d = dtype_find(dtype);
	int i;
	if (d)
		return d->name;
	return (i = file_type_index(dtype)) >= 0 ? file_types[i].name : NULL;
}

int hmn_dtype_block(enum hmn_dtype dtype, uint32_t *ret_elements, uint32_t *ret_bytes)
{
	const struct dtype_info *d = dtype_find(dtype);
	if (!d)
		return -EINVAL;
	if (ret_elements)
		*ret_elements = d->block;
	if (ret_bytes)
		*ret_bytes = d->bytes;
	return 0;
}

int hmn_tensor_bytes(enum hmn_dtype dtype, const uint64_t *dims, size_t n_dims, uint64_t *ret_bytes)
{
	const struct dtype_info *d = dtype_find(dtype);
	if (!d || (n_dims && !dims))
		return -EINVAL;
	/* ggml: rows of dims[0] elements, each a whole number of blocks. */
	uint64_t row = n_dims ? dims[0] : 1;
	if (d->block > 1 && dtype < HMN_DTYPE_BOOL && row % d->block)
		return -EINVAL;
	uint64_t rows = 1;
	for (size_t i = 1; i < n_dims; i++)
		if (mul_overflows(rows, dims[i], &rows))
			return -EOVERFLOW;
	uint64_t bytes;
	if (d->block > 1 && dtype < HMN_DTYPE_BOOL) {
		if (mul_overflows(row / d->block, d->bytes, &bytes) || mul_overflows(bytes, rows, &bytes))
			return -EOVERFLOW;
	} else {
		/* Byte types, and sub-byte ones packed whole: the elements' bits rounded up to a byte. */
		uint64_t elements;
		if (mul_overflows(row, rows, &elements) || (bytes = dtype_price(dtype, elements)) == HMN_UNKNOWN)
			return -EOVERFLOW;
	}
	*ret_bytes = bytes;
	return 0;
}

uint64_t dtype_price(enum hmn_dtype dtype, uint64_t elements)
{
	const struct dtype_info *d = dtype_find(dtype);
	uint64_t blocks, bytes;
	if (!d)
		return HMN_UNKNOWN;
	blocks = elements / d->block + (elements % d->block != 0);
	return mul_overflows(blocks, d->bytes, &bytes) ? HMN_UNKNOWN : bytes;
}
