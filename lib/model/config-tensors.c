/*
 * The tensors a config.json implies, where no weights' headers are read:
 * each matrix priced as the checkpoint's quantization stores it (its
 * modules left in the float type by their Hugging Face names), each vector
 * in the float type, one synthetic tensor a role, named as GGUF names it.
 * config.c's plain decoders and hybrids and config-encoder-decoder.c's use
 * them alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/config-tensors.h"

/*
 * The name Hugging Face gives layer's module (layer UINT32_MAX: none, the
 * module's name alone), in buf: what a checkpoint's lists of modules left in
 * the float type name. Llama's and DeepSeek's names ("model.layers.3.mlp.experts.0.gate_proj").
 */
const char *config_module_name(char *buf, size_t size, uint32_t layer, const char *module)
{
	if (!module)
		return NULL;
	if (layer == UINT32_MAX)
		snprintf(buf, size, "%s", module);
	else
		snprintf(buf, size, "model.layers.%" PRIu32 ".%s", layer, module);
	return buf;
}

/*
 * count matrices of in x out (in: the input width, along which groups run),
 * of class part, layer's module (NULL: the class decides; see config_module_name()).
 */
void config_priced_module(struct priced *p, const struct shape *s, enum quant_part part, uint32_t layer,
			  const char *module, uint64_t in, uint64_t out, uint64_t count)
{
	if (!count || !in || !out)
		return;
	char buf[128];
	const char *name = config_module_name(buf, sizeof(buf), layer, module);
	p->params = sat_add(p->params, MUL3(in, out, count));
	p->bytes = sat_add(p->bytes, sat_mul(quant_module_bytes(&s->q, part, name, in, out, s->weights), count));
	p->quantized |= s->q.name[0] && quant_module_quantized(&s->q, part, name);
}

void config_priced_add(struct priced *p, const struct shape *s, enum quant_part part, uint64_t in, uint64_t out,
		       uint64_t count)
{
	config_priced_module(p, s, part, UINT32_MAX, NULL, in, out, count);
}

/*
 * One synthetic tensor of p's parameters into b: a matrix of rows of row
 * elements, or a vector (row 0). Named as GGUF names it: llama.cpp's file
 * types price a tensor by its role and its rows' width.
 */
int config_implied(struct model_build *b, const char *name, const struct priced *p, uint64_t row, const struct shape *s)
{
	if (!p->params)
		return 0;
	if (p->params == HMN_UNKNOWN || p->bytes == HMN_UNKNOWN)
		return -EOVERFLOW;
	/* The type the tally names it by: the format's where some of it is in it. */
	enum hmn_dtype type = p->quantized ? s->q.dtype : s->weights;
	uint64_t dims[2] = { p->params, 1 };
	if (row && p->params % row == 0)
		dims[0] = row, dims[1] = p->params / row;
	b->torch_order = false;
	return model_build_tensor(b, name, strlen(name), type, dims, row ? 2 : 1, p->bytes);
}

/* A vector (norms, biases) of n parameters, in the float type. */
int config_implied_vector(struct model_build *b, const char *name, uint64_t n, const struct shape *s)
{
	struct priced p = { n, dtype_price(s->weights, n), false };
	return config_implied(b, name, &p, 0, s);
}
