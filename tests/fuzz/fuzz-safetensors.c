/*
 * libFuzzer harness: the safetensors header reader, model.safetensors.index.json
 * and config.json (lib/model/safetensors.c, lib/model/config.c), then every question
 * hmn fit asks of what they accepted. An input that starts with '{' is a
 * config.json (read alone, its shape implying the tensors) and an index;
 * any other is a .safetensors file, finished with a Llama config.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-model.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char llama_config[] =
	"{\"model_type\":\"llama\",\"hidden_size\":64,\"intermediate_size\":128,\"num_attention_heads\":4,"
	"\"num_key_value_heads\":2,\"num_hidden_layers\":2,\"vocab_size\":100,\"max_position_embeddings\":512,"
	"\"torch_dtype\":\"bfloat16\"}";

static int count_shard(const char *name, void *data)
{
	if (!name[0] || strchr(name, '/'))
		abort(); /* only plain file names come out */
	++*(size_t *)data;
	return 0;
}

static void finish(struct model_build *b, int r, const char *config, size_t len, bool alone,
		   struct model_error *e)
{
	if (r >= 0)
		r = config_read("config.json", config, len, b, alone, e);
	if (r < 0) {
		check_printable(e->buf); /* names from the file, made printable */
		model_build_abort(b);
		return;
	}
	if (b->m->n_layer > MODEL_MAX_LAYERS)
		abort();
	ask_everything(b->m);
	hmn_model_free(b->m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256] = "";
	struct model_error e = { why, sizeof(why) };
	struct model_build b;

	if (model_build_start(&b, NULL) < 0)
		return 0;
	if (size && data[0] == '{') {
		size_t shards = 0;
		int n = safetensors_index("fuzz/model.safetensors.index.json", (const char *)data, size, count_shard, &shards, &e);
		if (n >= 0 && (size_t)n != shards)
			abort();
		if (n < 0)
			check_printable(why);
		finish(&b, 0, (const char *)data, size, true, &e);
		return 0;
	}
	/* As a whole file, then with a terabyte of hole after it (the data a header names). */
	struct memory_file file = { data, size };
	struct reader r;
	memory_reader(&r, &file, size, "fuzz.safetensors");
	finish(&b, safetensors_read(&r, &b, &e), llama_config, sizeof(llama_config) - 1, false, &e);
	if (model_build_start(&b, NULL) < 0)
		return 0;
	memory_reader(&r, &file, size + (1ull << 40), "fuzz.safetensors");
	finish(&b, safetensors_read(&r, &b, &e), llama_config, sizeof(llama_config) - 1, false, &e);
	return 0;
}
