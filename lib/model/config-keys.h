/*
 * lib/model/config-keys.h: config.json's keys as its readers take them
 * (config-keys.c): a key looked up in text_config before the top level,
 * the family's default for one left out, every number checked. The bottom
 * of the config readers; private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_KEYS_H
#define HMN_MODEL_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model/model.h"

/* Where a config's shape is read: a multimodal one's text_config first, then the top level. */
struct config {
	const cJSON *text, *root;
	const struct arch_info *family; /* whose defaults stand for keys left out; NULL: none */
	const char *file;            /* for messages */
	const char *model_type;      /* printable, for messages */
	/*
	 * A model_type hmn does not know, beside its weights: the heads and the
	 * feed-forward it does not name are bounded (K and V as wide as the
	 * model, 4 x width), not refused: the weights are the headers' anyway.
	 */
	bool bound;
	bool by_index;               /* the weights are an index's total_size (model_build.priced_by_index) */
	struct shape_names names;    /* the keys the shape's rules name: transformers' own */
	const cJSON *modelopt;       /* hf_quant_config.json beside it; NULL: none */
	const cJSON *gptq;           /* quantize_config.json beside it; NULL: none */
	struct model_error *e;
};

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The shape every transformer has, by transformers' names and the older ones some families keep. */
#define LAYER_KEYS KEYS("num_hidden_layers", "n_layer", "num_layers", "n_layers")
#define WIDTH_KEYS KEYS("hidden_size", "n_embd", "d_model")
#define VOCAB_KEYS KEYS("vocab_size", "padded_vocab_size")
#define HEAD_KEYS KEYS("num_attention_heads", "n_head", "n_heads")
#define FF_KEYS KEYS("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", "ffn_config.ffn_hidden_size", \
			"ff_intermediate_size")

/* key's value, text_config's before the top level's; *ret_where names which, for messages. */
const cJSON *config_lookup(const struct config *c, const char *key, const char **ret_where);
/* The first of keys the config has (the one a message about its value names), else the first. */
const char *config_key_written(const struct config *c, const char *const *keys);
/* A JSON value as a message shows it: a number as written, a string quoted, else what it is. */
void config_describe(const cJSON *v, char *out, size_t size);
/*
 * A whole number from the first of keys present, within [min, max]: 1 and
 * *ret; else the family's default (1), else 0. Anything else is malformed
 * (-EINVAL), said naming the key. config_required: absent is malformed too;
 * config_optional: fallback when absent.
 */
int config_number(const struct config *c, const char *const *keys, uint64_t min, uint64_t max, uint64_t *ret);
int config_required(const struct config *c, const char *const *keys, uint64_t min, uint64_t max, uint64_t *ret);
int config_optional(const struct config *c, const char *const *keys, uint64_t min, uint64_t max, uint64_t fallback,
		    uint64_t *ret);
/* true or false; when absent, the family's default, else fallback; anything else is malformed. */
int config_flag(const struct config *c, const char *key, bool fallback, bool *ret);

#endif
