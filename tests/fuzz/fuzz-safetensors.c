/*
 * libFuzzer harness: the safetensors header reader, model.safetensors.index.json
 * and config.json (lib/model/safetensors.c, lib/model/config.c), then every question
 * hmn fit asks of what they accepted. An input that starts with '{' is a
 * config.json (read alone, its shape implying the tensors) and an index (its
 * shards, its metadata.total_size, its tensors' names);
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

/*
 * The index as model_resolve() reads and keeps it: plain shard names, each
 * once, a total_size within bounds or said why not (printable), each
 * tensor name with a shard among those named.
 */
static void check_index(const char *text, size_t size)
{
	char why[256] = "";
	struct model_error e = { why, sizeof(why) };
	struct safetensors_index ix;
	if (safetensors_index_read("fuzz/model.safetensors.index.json", text, size, &ix, &e) < 0) {
		check_printable(why);
		return;
	}
	if (!ix.n_shards || (ix.total == INDEX_TOTAL_VALID && (!ix.total_size || ix.total_size > MODEL_MAX_TOTAL_SIZE)))
		abort();
	if (ix.total == INDEX_TOTAL_INVALID)
		check_printable(ix.total_problem);
	for (size_t i = 0; i < ix.n_shards; i++) {
		const char *name = ix.shards[i];
		if (!name[0] || name[0] == '.' || strchr(name, '/') || strchr(name, '\\') || strchr(name, ':'))
			abort(); /* only plain file names come out: they become paths */
		for (size_t j = 0; j < i && ix.n_shards <= 256; j++)
			if (!strcmp(name, ix.shards[j]))
				abort(); /* each once (checked where that is quick) */
	}
	size_t at = 0;
	for (size_t i = 0; i < ix.n_tensors; i++) {
		if (ix.tensor_shard[i] >= ix.n_shards || at >= ix.names_len)
			abort();
		at += strlen(ix.tensor_names + at) + 1;
	}
	if (at != ix.names_len)
		abort();
	safetensors_index_clear(&ix);
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
		check_index((const char *)data, size);
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
