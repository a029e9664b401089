/*
 * lib/model/config-tensors.h: the tensors a config.json implies
 * (config-tensors.c), priced matrix by matrix as the checkpoint stores
 * them. Above the shape (config-layers.h), below the readers that build a
 * model's tensors from it (config.c, config-encoder-decoder.c). Private to
 * lib/model.
 */
#ifndef HMN_MODEL_CONFIG_TENSORS_H
#define HMN_MODEL_CONFIG_TENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/config-layers.h"

/* Parameters and their bytes as stored, summed matrix by matrix. */
struct priced {
	uint64_t params, bytes;
	bool quantized;          /* some of them in the quantization's format */
};

/*
 * The name Hugging Face gives layer's module (layer UINT32_MAX: none, the
 * module's name alone), in buf; NULL for no module.
 */
const char *config_module_name(char *buf, size_t size, uint32_t layer, const char *module);
/* count matrices of in x out of class part, layer's module (NULL: the class decides), added to p. */
void config_priced_module(struct priced *p, const struct shape *s, enum quant_part part, uint32_t layer,
			  const char *module, uint64_t in, uint64_t out, uint64_t count);
/* As config_priced_module, of no module: the class decides. */
void config_priced_add(struct priced *p, const struct shape *s, enum quant_part part, uint64_t in, uint64_t out,
		       uint64_t count);
/* One synthetic tensor of p's parameters into b, rows of row elements (0: a vector); -EOVERFLOW past 2^64. */
int config_implied(struct model_build *b, const char *name, const struct priced *p, uint64_t row,
		   const struct shape *s);
/* A vector (norms, biases) of n parameters, in the float type. */
int config_implied_vector(struct model_build *b, const char *name, uint64_t n, const struct shape *s);

#endif
