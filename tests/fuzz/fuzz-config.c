/*
 * libFuzzer harness: config.json with NVIDIA ModelOpt's hf_quant_config.json
 * beside it (lib/model/config.c, lib/model/quant.c), read alone (its shape
 * and quantization implying the tensors) and as the config of quantized
 * safetensors (the packed words' bits), then every question hmn fit asks of
 * what they accepted. The input is config.json, then, after the first NUL
 * byte where there is one, hf_quant_config.json, then after the next
 * quantize_config.json (AutoGPTQ's).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-model.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A GPTQ q_proj's tensors, as the shards before a config.json bring them. */
static int add_packed(struct model_build *b)
{
	static const struct {
		const char *name;
		enum hmn_dtype dtype;
		uint64_t dims[2];
	} tensors[] = {
		{ "model.layers.0.self_attn.q_proj.qweight", HMN_DTYPE_I32, { 8, 64 } },
		{ "model.layers.0.self_attn.q_proj.scales", HMN_DTYPE_F16, { 1, 64 } },
		{ "model.layers.0.self_attn.q_proj.weight", HMN_DTYPE_U32, { 64, 8 } },
	};
	for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); i++) {
		int r = model_build_tensor(b, tensors[i].name, strlen(tensors[i].name), tensors[i].dtype, tensors[i].dims,
					   2, tensors[i].dims[0] * tensors[i].dims[1] * 4);
		if (r < 0)
			return r;
	}
	return 0;
}

struct beside {
	const char *modelopt, *gptq;
	size_t modelopt_len, gptq_len;
};

/* by_index: the weights an index's total_size, so an unknown model_type is read, not refused (open.c). */
static void read_one(const char *config, size_t len, const struct beside *side, bool alone, bool by_index)
{
	char why[256] = "";
	struct model_error e = { why, sizeof(why) };
	struct model_build b;
	if (model_build_start(&b, NULL) < 0)
		return;
	b.modelopt = side->modelopt;
	b.modelopt_len = side->modelopt_len;
	b.gptq = side->gptq;
	b.gptq_len = side->gptq_len;
	b.priced_by_index = by_index;
	int r = alone ? 0 : add_packed(&b);
	if (r >= 0)
		r = config_read("config.json", config, len, &b, alone, &e);
	if (r < 0) {
		check_printable(why);
		model_build_abort(&b);
		return;
	}
	if (b.m->n_layer > MODEL_MAX_LAYERS)
		abort();
	check_printable(b.m->warning);
	check_printable(b.m->note);
	check_printable(b.m->quantization);
	ask_everything(b.m);
	hmn_model_free(b.m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	size_t len = nul ? (size_t)(nul - text) : size;
	struct beside side = { 0 };
	if (nul) {
		side.modelopt = nul + 1;
		side.modelopt_len = size - len - 1;
		const char *next = memchr(side.modelopt, '\0', side.modelopt_len);
		if (next) {
			side.gptq = next + 1;
			side.gptq_len = side.modelopt_len - (size_t)(next - side.modelopt) - 1;
			side.modelopt_len = (size_t)(next - side.modelopt);
		}
	}
	read_one(text, len, &side, true, false);
	read_one(text, len, &side, true, true);
	read_one(text, len, &side, false, false);
	return 0;
}
