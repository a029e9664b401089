#!/usr/bin/env bats
# hmn fit MODEL on the test models (tests/make-models: real shapes, sparse data)
# against the stand-in NVML's free memory, and with --memory on no GPU at all.

load helpers

setup() {
	common_setup
	[ -f "$MODELS/MANIFEST" ] || skip "no test models (tests/make-models)"
}

MIB=1048576

@test "fit table: the title, the parts and the GPUs, aligned, one word a cell" {
	two_gpus
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --context 4096
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "hmn fit: LLaMA v2: llama, 6.74B parameters (q4_0), 4096 tokens x 1 sequence" ]
	[ "${lines[1]}" = "PART           SIZE" ]
	[ "${lines[2]}" = "weights      3.5GiB" ]
	[ "${lines[3]}" = "kv_cache     2.0GiB" ]
	[ "${lines[4]}" = "activations  101MiB" ]
	[ "${lines[5]}" = "runtime      512MiB" ]
	[ "${lines[6]}" = "margin       624MiB" ]
	[ "${lines[7]}" = "total        6.7GiB" ]
	# MAX_BATCH: sequences of 4096 tokens at 2 GiB of cache each, beside 4.1 GiB of the rest, x 1.1.
	[ "${lines[8]}" = "GPU     FREE  FITS  MAX_CONTEXT  MAX_BATCH  LAYERS  NAME" ]
	[ "${lines[9]}" = "  0  59.8GiB  yes          4096         25     all  NVIDIA H100 80GB HBM3" ]
	[ "${lines[10]}" = "  1  45.0GiB  yes          4096         18     all  NVIDIA L40S" ]
	[ "${#lines[@]}" -eq 11 ]
	! grep -q ' $' <<<"$output" || false
	[ -z "$stderr" ]
}

@test "fit --json: the contract's keys; total is 1.1 x the parts, the margin the rest; the KV cache as llama.cpp allocates it" {
	two_gpus
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --context 4096 --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.model.format == "gguf" and .model.architecture == "llama"
		and .model.parameters == 6738415616 and .model.dtype == "q4_0" and .model.layers == 32
		and .model.context_length == 4096 and .context == 4096 and .batch == 1 and .kv_dtype == "f16"
		and .train == false and .gpus_split == 1 and .parts.optimizer_bytes == null
		and .parts.kv_cache_bytes == 2048 * 1048576 and .parts.runtime_bytes == 512 * 1048576
		and .per_gpu_bytes == .total_bytes
		and (.total_bytes - 1.1 * (.parts.weights_bytes + .parts.kv_cache_bytes + .parts.activations_bytes
			+ .parts.runtime_bytes) | fabs) <= 1
		and .parts.margin_bytes == .total_bytes - (.parts.weights_bytes + .parts.kv_cache_bytes
			+ .parts.activations_bytes + .parts.runtime_bytes)
		and (.gpus | length) == 2 and .gpus[0].index == 0 and .gpus[0].name == "NVIDIA H100 80GB HBM3"
		and .gpus[0].uuid == "GPU-aaaaaaaa-1111-2222-3333-444444444444"
		and .gpus[0].free_bytes == 64237862912 and .gpus[0].fits and .gpus[0].max_context == 4096
		and .gpus[0].max_batch == 25 and .gpus[1].max_batch == 18 and .gpus[0].gpu_layers == null'
	# llama.cpp's own model buffer for this file, loaded on the CPU: 3647.87 MiB (tests/fixtures/fit/llama-cpp.tsv).
	# On a GPU llama.cpp keeps token_embd (Q4_0 4096 x 32000: 73,728,000 bytes) on the host: the GPU holds the rest.
	[ "$(echo "$output" | jq '(.parts.weights_bytes + 73728000) / 1048576 * 100 | round')" -eq 364787 ]
	# A tied model's token_embd is its output head too: llama.cpp copies it to the GPU, once.
	run "$HMN" fit "$MODELS/llama-3.2-1b.Q8_0.gguf" --context 4096 --memory 80GiB --json
	[ "$(echo "$output" | jq '.parts.weights_bytes / 1048576 * 100 | round')" -eq 125241 ]
}

@test "fit: Llama-3-8B's GQA cache is a quarter of Llama-2's a token; the context pads to 256 cells" {
	two_gpus
	run "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 8192 --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((1024 * MIB)) ]
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 35000 --json
	[ "$(echo "$output" | jq .context)" -eq 35072 ]
	# Past its 8192 trained tokens: said on stderr and in model.warning, the estimate made as asked.
	[ "$(echo "$output" | jq -r .model.warning)" = "context 35000 is beyond its 8192 trained tokens: estimated as asked" ]
	[ "$stderr" = "hmn: $MODELS/llama-3-8b.Q4_K_M.gguf: context 35000 is beyond its 8192 trained tokens: estimated as asked" ]
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((35072 * 128 * 1024)) ]
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 8192 --json
	[ "$(echo "$output" | jq .model.warning)" = null ]
	# The split file reads its other parts and tells the same model.
	run "$HMN" fit "$MODELS/llama-3-8b-split-00001-of-00003.gguf" --context 8192 --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((1024 * MIB)) ]
	[ "$(echo "$output" | jq .model.parameters)" -eq 8030261248 ]
}

@test "fit: a Gemma's sliding-window layers stop growing past their window" {
	run "$HMN" fit "$MODELS/gemma-3-1b.Q8_0.gguf" --memory 80GiB --context 32768 --json
	[ "$status" -eq 0 ]
	small=$(echo "$output" | jq .parts.kv_cache_bytes)
	# 22 sliding layers of pad(512 window + 512 ubatch, 256) cells, 4 full ones of 32768, each
	# cell 1 KV head x 256 x 2 (K and V) x 2 bytes.
	[ "$small" -eq $((22 * 1024 * 1024 + 4 * 32768 * 1024)) ]
	# At node-llama-cpp's ubatch of 513 the window pads to 1280 cells: llama.cpp logged 155.50 MiB.
	run "$HMN" fit "$MODELS/gemma-3-1b.Q8_0.gguf" --memory 80GiB --context 32768 --ubatch 513 --json
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((15550 * MIB / 100)) ]
	# (Past its 32768 trained tokens: said on stderr, estimated as asked.)
	run_split "$HMN" fit "$MODELS/gemma-3-1b.Q8_0.gguf" --memory 80GiB --context 131072 --json
	big=$(echo "$output" | jq .parts.kv_cache_bytes)
	# Only the 4 full-attention layers of 26 grow: 4 x 1 KV head x 256 x 2 (K and V) x 2 bytes a token.
	[ $((big - small)) -eq $(((131072 - 32768) * 4 * 1024)) ]
	# Gemma 2 as well: every other layer slides, at pad(4096 window + 512 ubatch, 256) cells;
	# a cell is 4 KV heads x 256 x 2 x 2 bytes.
	run "$HMN" fit "$MODELS/gemma-2-2b.Q8_0.gguf" --memory 80GiB --context 8192 --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((13 * 8192 * 4096 + 13 * 4608 * 4096)) ]
}

@test "fit: a Mixtral-like MoE counts every expert's weights; too big a GGUF says how many layers fit" {
	run_split "$HMN" fit "$MODELS/mixtral-8x7b.Q4_0.gguf" --memory 16GiB --json
	[ "$status" -eq 4 ]
	echo "$output" | jq -e '.model.parameters == 46702792704 and .gpus[0].fits == false
		and .gpus[0].gpu_layers > 0 and .gpus[0].gpu_layers < 32 and .gpus[0].max_context == null
		and .gpus[0].max_batch == 0'
	[[ "$stderr" == "hmn: $MODELS/mixtral-8x7b.Q4_0.gguf needs 32.1GiB; --memory gives 16.0GiB" ]]
	layers=$(echo "$output" | jq .gpus[0].gpu_layers)
	# The table says it too, in LAYERS.
	run_split "$HMN" fit "$MODELS/mixtral-8x7b.Q4_0.gguf" --memory 16GiB
	[ "$status" -eq 4 ]
	[ "${lines[8]}" = "GPU     FREE  FITS  MAX_CONTEXT  MAX_BATCH  LAYERS  NAME" ]
	[ "${lines[9]}" = "$(printf '  -  16.0GiB  no              -          0  %6s  (--memory)' "$layers")" ]
	# More memory, more layers.
	run "$HMN" fit "$MODELS/mixtral-8x7b.Q4_0.gguf" --memory 24GiB --json
	[ "$(echo "$output" | jq .gpus[0].gpu_layers)" -gt "$layers" ]
}

@test "fit: a small model with tied embeddings counts them once" {
	run "$HMN" fit "$MODELS/llama-3.2-1b.Q8_0.gguf" --memory 8GiB --context 16384 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 1235814400 and .parts.kv_cache_bytes == 512 * 1048576'
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --memory 8GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 494032768 and .model.format == "safetensors"'
}

@test "fit on safetensors folders: vLLM's KV a token, the weights from the headers, config.json alone" {
	two_gpus
	run "$HMN" fit "$MODELS/Meta-Llama-3-8B" --context 1024 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.format == "safetensors" and .model.dtype == "bf16" and .kv_dtype == "bf16"
		and .parts.kv_cache_bytes == 1024 * 131072 and .model.parameters == 8030261248
		and .parts.weights_bytes == 2 * .model.parameters'
	run "$HMN" fit "$MODELS/Llama-2-7b-hf" --context 1024 --json
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((1024 * 512 * 1024)) ]
	# DeepSeek-V3: latent attention, 61 x 576 x 2 bytes a token; 163 shards through the index.
	run "$HMN" fit "$MODELS/DeepSeek-V3" --context 1024 --memory 1TiB --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq $((1024 * 70272)) ]
	# config.json alone: the parameters its shape implies.
	run "$HMN" fit "$MODELS/DeepSeek-V2-Lite/config.json" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.format == "config" and .model.parameters == 15706484224'
	# Mamba: a fixed state, no cache that grows (float32: a note on stderr).
	run_split "$HMN" fit "$MODELS/mamba-130m-hf" --context 2048 --memory 8GiB --json
	[ "$status" -eq 0 ]
	a=$(echo "$output" | jq .parts.kv_cache_bytes)
	run_split "$HMN" fit "$MODELS/mamba-130m-hf" --context 65536 --memory 8GiB --json
	[ "$(echo "$output" | jq .parts.kv_cache_bytes)" -eq "$a" ]
}

@test "fit on a folder without an index: model.safetensors, else its shards, else consolidated; never two copies" {
	# Qwen2.5-0.5B (494,032,768 parameters) beside its copies: model.fp16.safetensors, Mistral's
	# consolidated.safetensors (other tensor names: once summed), a LoRA's adapter_model.safetensors.
	for folder in Qwen2.5-0.5B-extras Qwen2.5-0.5B-shards-extras Qwen2.5-0.5B-consolidated Qwen2.5-0.5B-fp16; do
		run_split "$HMN" fit "$MODELS/$folder" --memory 8GiB --json
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		echo "$output" | jq -e '.model.parameters == 494032768'
	done
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-extras" --memory 8GiB
	[[ "${lines[0]}" == *": qwen2, 494.0M parameters (bf16), "* ]]
	# What cannot be told apart is refused, one line saying which files, never guessed at.
	run_split "$HMN" fit "$MODELS/hostile/two-copies" --memory 8GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $MODELS/hostile/two-copies: no model.safetensors, model-NNNNN-of-MMMMM.safetensors nor index, and both model.fp16.safetensors and model.fp32.safetensors: which are the weights cannot be told (name one .safetensors file)" ]
	run_split "$HMN" fit "$MODELS/hostile/adapter-only" --memory 8GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $MODELS/hostile/adapter-only: adapter_model.safetensors is a LoRA adapter, not a model's weights: fit the model it adapts" ]
	run_split "$HMN" fit "$MODELS/hostile/two-shard-sets" --memory 8GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"model-00001-of-00002.safetensors and model-00001-of-00003.safetensors are shards of two sets"* ]]
	# Named, one file is read alone: the fp16 copy is a model of its own.
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-extras/model.fp16.safetensors" --memory 8GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 494032768 and .model.dtype == "f16"'
}

# no_escapes TEXT...: od -c finds none of tests/make-models' ESCAPES in them (ESC, BEL, the C1 CSI, 0xff).
no_escapes() {
	local text
	for text in "$@"; do
		if printf '%s' "$text" | od -An -v -c -w1 | tr -d ' ' | paste -sd ' ' |
			grep -E '(^| )(033|\\a|377)( |$)|(^| )302 233( |$)'; then
			printf 'in: %s\n' "$text"
			return 1
		fi
	done
}

@test "fit: a model's names never reach the terminal as escapes: title, warning, errors, its path" {
	# escapes.gguf: general.architecture, general.name and a tensor's name are ESC[2J ESC]0;owned BEL CSI 0xff.
	run_split "$HMN" fit "$MODELS/hostile/escapes.gguf" --memory 8GiB
	[ "$status" -eq 0 ]
	no_escapes "$output" "$stderr"
	[[ "${lines[0]}" == "hmn fit: ?[2J?]0;owned????: ?[2J?]0;owned????, "* ]]
	[ "$stderr" = "hmn: $MODELS/hostile/escapes.gguf: architecture '?[2J?]0;owned????' is not one hmn knows: the weights are exact, from their headers; the KV cache and activations are an upper bound: every layer full attention" ]
	# The JSON escapes ESC and BEL, and stays JSON.
	run_split "$HMN" fit "$MODELS/hostile/escapes.gguf" --memory 8GiB --json
	[ "$status" -eq 0 ]
	no_escapes "$stderr"
	[ -z "$(printf '%s' "$output" | od -An -v -c -w1 | tr -d ' ' | grep -xE '033|\\a')" ]
	echo "$output" | jq -e '.model.architecture == "?[2J?]0;owned????" and .model.warning == "architecture '"'?[2J?]0;owned????'"' is not one hmn knows: the weights are exact, from their headers; the KV cache and activations are an upper bound: every layer full attention" and (.model.name | startswith("\u001b[2J\u001b]0;owned\u0007"))'
	# An error naming a tensor of the file.
	run_split "$HMN" fit "$MODELS/hostile/escapes-tensor.gguf" --memory 8GiB
	[ "$status" -eq 1 ]
	no_escapes "$output" "$stderr"
	[[ "$stderr" == *": tensor '?[2J?]0;owned????' has ggml type 41, "* ]]
	# MODEL's own path, in hmn's lines and the library's: a folder's name is whoever published it's.
	local dir="$BATS_TEST_TMPDIR/"$'\e]0;owned\a\e[2J'
	mkdir "$dir"
	cp "$MODELS/hostile/escapes.gguf" "$dir/m.gguf"
	run_split "$HMN" fit "$dir/m.gguf" --memory 1MiB
	[ "$status" -eq 4 ]
	no_escapes "$output" "$stderr"
	[[ "$stderr" == *"$BATS_TEST_TMPDIR/?]0;owned??[2J/m.gguf needs "* ]]
	run_split "$HMN" fit "$dir/absent.gguf" --memory 8GiB
	[ "$status" -eq 1 ]
	no_escapes "$stderr"
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/?]0;owned??[2J/absent.gguf: no such file or folder" ]
}

@test "fit --gpus N: weights and cache divided, a runtime on each, N GPUs must have room" {
	two_gpus
	run_split "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --json
	[ "$status" -eq 4 ]
	one=$(echo "$output" | jq .parts.weights_bytes)
	run_split "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --gpus 2 --json
	echo "$output" | jq -e --argjson one "$one" '.gpus_split == 2 and .parts.weights_bytes == $one / 2
		and .parts.runtime_bytes == 512 * 1048576 and .total_bytes == 2 * .per_gpu_bytes'
	# 49.1GiB a GPU: the H100 has room, the L40S not: one of two is not enough.
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: $MODELS/Mixtral-8x7B-v0.1 needs 49.1GiB on each of 2 GPUs; 1 has room" ]
	# In fp8 both have room.
	run "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --gpus 2 --dtype fp8 -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# Three asked of two: said before the table (whose rows each have room for a share), then exit 4.
	# Three does not divide Mixtral's 32 heads either: vLLM refuses it ("Total number of attention
	# heads (32) must be divisible by tensor parallel size (3)"), a warning; the estimate as asked, each
	# GPU's 8 KV heads taken as 3 (rounded up: an upper bound).
	run_split "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --gpus 3 --dtype fp8
	[ "$status" -eq 4 ]
	[ "${stderr_lines[0]}" = "hmn: $MODELS/Mixtral-8x7B-v0.1: --gpus 3 does not divide its 32 attention heads: vLLM refuses that tensor-parallel size; estimated as asked" ]
	[ "${stderr_lines[1]}" = "hmn: $MODELS/Mixtral-8x7B-v0.1: --gpus 3, but 2 GPUs are listed: it cannot be split over 3 here" ]
	[ "${stderr_lines[2]}" = "hmn: $MODELS/Mixtral-8x7B-v0.1 needs 17.1GiB on each of 3 GPUs; 2 are listed" ]
	[ "${lines[0]}" = "hmn fit: Mixtral-8x7B-v0.1: mixtral, 46.70B parameters (f8_e4m3), 8192 tokens x 1 sequence, split over 3 GPUs, sizes per GPU" ]
	run_split "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --gpus 3 --dtype fp8 --device 0
	[ "$status" -eq 4 ]
	[[ "${stderr_lines[1]}" == *": --gpus 3, but 1 GPU is listed: it cannot be split over 3 here" ]]
	# --gpus 1 (and none) keeps its title; a GGUF split by llama.cpp's layers needs no division of heads.
	run_split "$HMN" fit "$MODELS/Mixtral-8x7B-v0.1" --context 8192 --gpus 1 --memory 80GiB
	[ "${lines[0]}" = "hmn fit: Mixtral-8x7B-v0.1: mixtral, 46.70B parameters (bf16), 8192 tokens x 1 sequence" ]
	run_split "$HMN" fit "$MODELS/mixtral-8x7b.Q4_0.gguf" --context 8192 --gpus 3 --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.model.warning == null'
}

@test "fit --gpus N: the KV cache divided as vLLM shards it, by heads: a latent cache whole, fewer KV heads than GPUs replicated" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# DeepSeek-R1's MLA: 61 layers x (512 + 64) x 2 bytes a token, whole on each of 8 GPUs (it was an
	# eighth, 275MiB, and MAX_BATCH 183).
	run_split "$HMN" fit "$fixtures/deepseek-r1/config.json" --memory 141GiB --gpus 8 --context 32768 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.parts.kv_cache_bytes == 61 * 576 * 2 * 32768 and .gpus[0].max_batch == 22'
	# falcon-7b's one KV head on both GPUs: the cache as on one.
	run_split "$HMN" fit "$fixtures/falcon-7b/config.json" --memory 24GiB --gpus 2 --context 2048 --json
	echo "$output" | jq -e '.parts.kv_cache_bytes == 32 * 2048 * 2 * 64 * 2 and .gpus[0].max_batch == 947'
	# Qwen3-Next's 2 KV heads over 4: one each, its 12 attention layers' half; its DeltaNet states a quarter.
	run_split "$HMN" fit "$fixtures/Qwen3-Next-80B-A3B-Instruct/config.json" --memory 80GiB --gpus 4 \
		--context 32768 --json
	echo "$output" | jq -e '.parts.kv_cache_bytes == 12 * 32768 * 1024 + 36 * (3 * 2048 + 128 * 1024) * 2'
	# A GGUF's cache is split with its layers: divided by N as before.
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 80GiB --context 8192 --json
	one=$(jq .parts.kv_cache_bytes <<<"$output")
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 80GiB --context 8192 --gpus 16 --json
	[ "$(jq .parts.kv_cache_bytes <<<"$output")" -eq $((one / 16)) ]
}

@test "fit: MAX_CONTEXT is the longest context that fits, a multiple of 256 for a GGUF" {
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 6GiB --json
	[ "$status" -eq 4 ]
	max=$(echo "$output" | jq .gpus[0].max_context)
	[ "$max" -gt 0 ] && [ "$max" -lt 8192 ] && [ $((max % 256)) -eq 0 ]
	run "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 6GiB --context "$max" -q
	[ "$status" -eq 0 ]
	run "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 6GiB --context $((max + 256)) -q
	[ "$status" -eq 4 ]
}

@test "fit --train: optimizer and kept activations, no KV cache" {
	run "$HMN" fit "$MODELS/Meta-Llama-3-8B" --train --context 2048 --memory 200GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.train and .parts.kv_cache_bytes == 0
		and .parts.optimizer_bytes == 14 * .model.parameters
		and .parts.optimizer_bytes + .parts.weights_bytes == 16 * .model.parameters'
	run "$HMN" fit "$MODELS/Meta-Llama-3-8B" --train --context 2048 --memory 200GiB --attention eager --json
	eager=$(echo "$output" | jq .parts.activations_bytes)
	run "$HMN" fit "$MODELS/Meta-Llama-3-8B" --train --context 2048 --memory 200GiB --json
	[ "$eager" -gt "$(echo "$output" | jq .parts.activations_bytes)" ]
}

@test "fit --kv-dtype: a quantised cache at its block size; llama.cpp's flash attention rule said" {
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --context 4096 --kv-dtype q8_0 --memory 24GiB --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 34 bytes a block of 32: 1088 MiB where f16 takes 2048.
	[ "$(jq .parts.kv_cache_bytes <<<"$output")" -eq $((1088 * MIB)) ]
	[ "$(jq -r .kv_dtype <<<"$output")" = q8_0 ]
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --context 4096 --kv-dtype q8_0 --attention eager --memory 24GiB
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $MODELS/llama-2-7b.Q4_0.gguf: llama.cpp needs flash attention (--attention fused) for a q8_0 V cache" ]
}

@test "fit --memory plans without a GPU: no driver is loaded" {
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run_split "$HMN" fit "$MODELS/gpt2" --memory 4GiB
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "  -  4.0GiB  yes          1024         36  (--memory)" ]
	[ ! -e "$HMN_STUB_TRACE" ]
	# Without --memory and with no GPU: 3, saying what was tried.
	run_split "$HMN" fit "$MODELS/gpt2"
	[ "$status" -eq 3 ]
	# gpt2 is float32: its note comes first.
	[[ "$stderr" == "hmn: $MODELS/gpt2: note: stored in float32"*"hmn: no GPU found"* ]]
	# and how to plan without one; not with --device, which --memory does not go with.
	[ "$(tail -1 <<<"$stderr")" = "hmn: to plan for a GPU that is not here: hmn fit --memory SIZE MODEL" ]
	run_split "$HMN" fit --device 0 "$MODELS/gpt2"
	[ "$status" -eq 3 ]
	[[ "$stderr" != *"--memory"* ]]
}

@test "fit -q is a CI gate: the status alone; -o FILE still gets the document" {
	two_gpus
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" -q
	[ "$status" -eq 0 ]
	[ -z "$output" ] && [ -z "$stderr" ]
	run_split "$HMN" fit "$MODELS/DeepSeek-V3" -q
	[ "$status" -eq 4 ]
	[ -z "$output" ] && [ -z "$stderr" ]
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --json -o "$BATS_TEST_TMPDIR/fit.json"
	[ "$status" -eq 0 ]
	jq -e '.model.layers == 32' "$BATS_TEST_TMPDIR/fit.json"
}

@test "fit --device: only the GPUs named" {
	two_gpus
	run "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --device 1 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '(.gpus | length) == 1 and .gpus[0].index == 1'
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --device 7
	[ "$status" -eq 2 ]
}

@test "fit on MIG: each instance is a GPU of its own, its parent GPU is not" {
	scenario 'driver 590.48.01' \
		'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-00000000-0000-0000-0000-000000000000 pci=00000000:00:09.0 total=85520809984 reserved=502267904 used=11665408000' \
		'mig gpu=0 gi=2 ci=0 name="NVIDIA H100 80GB HBM3 MIG 3g.40gb" uuid=MIG-00000000-0000-0000-0000-000000000000 total=42412802048 used=11629756416' \
		'mig gpu=0 gi=9 ci=0 name="NVIDIA H100 80GB HBM3 MIG 1g.10gb" uuid=MIG-00000002-0000-0000-0000-000000000002 total=10468982784 used=9437184'
	# 10.2GiB at 32768 tokens: the 3g.40gb instance has room, the 1g.10gb one not; the GPU's own row is no place.
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 32768 --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.gpus[] | [.index, .mig.gpu_instance_id, .mig.parent_index, .fits]]' <<<"$output")" = '[[0,2,0,true],[0,9,0,false]]' ]
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 32768
	[[ "${lines[9]}" == "0/2.0  28.7GiB  yes "* ]]
	[[ "${lines[10]}" == "0/9.0   9.7GiB  no "* ]]
	# The GPU named by its UUID is used through its instances too: never its own 68.3GiB (it said "fits").
	run_split "$HMN" fit "$MODELS/mixtral-8x7b.Q4_0.gguf" --device GPU-00000000-0000-0000-0000-000000000000 --json
	[ "$status" -eq 4 ]
	[ "$(jq -c '[.gpus[] | [.index, .mig.gpu_instance_id, .fits]]' <<<"$output")" = '[[0,2,false],[0,9,false]]' ]
	run_split "$HMN" free --need 30G --device GPU-00000000-0000-0000-0000-000000000000
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 30.0GiB free (most: GPU 0/2.0, 28.7GiB)" ]
}

@test "fit: a GPU that failed to answer is never a fit (0) nor a no-room (4): exit 1, the others still answered" {
	scenario 'gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=85899345920 used=1048576' \
		'gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=85899345920 used=1048576 error=15'
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --json
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.gpus[] | [.index, .fits]]' <<<"$output")" = '[[0,true]]' ]
	[[ "$stderr" == *"GPU 1: GPU is lost (nvml)"* ]]
	# Only the lost one listed: it said 4, "no GPU says how much it has free".
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --device 1
	[ "$status" -eq 1 ]
	# --memory plans for a GPU of that size: the GPUs present are not asked.
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --memory 80GiB
	[ "$status" -eq 0 ]
}

@test "fit: an encoder (BERT) is one: its parameters as published, no KV cache, no warning" {
	run_split "$HMN" fit "$MODELS/bert-base-cased" --memory 4GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "bert" and .model.parameters == 108310272 and .model.warning == null
		and .parts.kv_cache_bytes == 0 and .parts.activations_bytes > 0'
	# Its config.json alone: the same count.
	run_split "$HMN" fit "$MODELS/bert-base-cased/config.json" --memory 4GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 108310272 and .parts.kv_cache_bytes == 0'
}

@test "fit: an encoder's activations are its batch's whole forward pass: --batch counts, MAX_BATCH is bounded" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# The T5 v1.1 XXL encoder (FLUX's), f16, 512 tokens: the stream and its gated FFN, 39,845,888 bytes a
	# sequence. --batch 65536 priced as --batch 1, and MAX_BATCH 65536, before.
	run_split "$HMN" fit "$fixtures/t5-v1_1-xxl-encoder/config.json" --memory 24GiB --batch 1 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.parts.activations_bytes == 39845888 and .gpus[0].max_batch == 335'
	run_split "$HMN" fit "$fixtures/t5-v1_1-xxl-encoder/config.json" --memory 24GiB --batch 65536 --json
	[ "$status" -eq 4 ]
	echo "$output" | jq -e '.parts.activations_bytes == 65536 * 39845888 and (.gpus[0].fits | not)'
	# BERT-base at 32 x 512 in f16: the FFN's 288 MiB and the stream's 48; eager, the scores' 384 MiB instead.
	run_split "$HMN" fit "$MODELS/bert-base-cased" --memory 4GiB --dtype f16 --batch 32 --json
	echo "$output" | jq -e '.parts.activations_bytes == 352321536'
	run_split "$HMN" fit "$MODELS/bert-base-cased" --memory 4GiB --dtype f16 --batch 32 --attention eager --json
	echo "$output" | jq -e '.parts.activations_bytes == 553648128'
}

@test "fit: a model_type hmn does not know: refused from config.json alone, an upper bound beside its weights" {
	# bert-base-cased's folder, its model_type one hmn has no entry for.
	cp -r "$MODELS/bert-base-cased" "$BATS_TEST_TMPDIR/custom"
	jq '.model_type = "custom-encoder" | .sliding_window = 128' "$MODELS/bert-base-cased/config.json" \
		>"$BATS_TEST_TMPDIR/custom/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/custom/config.json" --memory 4GiB --json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/custom/config.json: model_type 'custom-encoder' is not one hmn knows: its size cannot be read from config.json alone (give hmn the model's folder: its weights' safetensors headers, or its model.safetensors.index.json)" ]
	# With its weights: priced from their headers, the KV cache as if every layer attended to the whole context.
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/custom" --memory 4GiB --context 512 --json
	[ "$status" -eq 0 ]
	# (bert-base-cased is float32, as its test model: the note follows the warning.)
	[ "${stderr_lines[0]}" = "hmn: $BATS_TEST_TMPDIR/custom: model_type 'custom-encoder' is not one hmn knows: the weights are exact, from their headers; the KV cache and activations are an upper bound: every layer full attention" ]
	echo "$output" | jq -e '.model.parameters == 108310272 and .parts.kv_cache_bytes == 12 * 512 * 2 * 768 * 4
		and (.model.warning | contains("an upper bound"))'
}

@test "fit: a model_type hmn does not know beside its index: priced from total_size, with or without shards" {
	# Llama-3.1-8B's config.json and index (total_size 16060522496: 8,030,261,248 bf16 parameters,
	# its model card's 8.03B) under a model_type hmn has no entry for: refused from config.json
	# alone, the folder's index prices the weights and the rest is the upper bound (issue 27 item 1).
	mkdir "$BATS_TEST_TMPDIR/unkidx"
	jq '.model_type = "frobnitz"' "$MODELS/Llama-3.1-8B-partial/config.json" >"$BATS_TEST_TMPDIR/unkidx/config.json"
	cp "$MODELS/Llama-3.1-8B-partial/model.safetensors.index.json" "$BATS_TEST_TMPDIR/unkidx/"
	for shards in none one; do
		run_split "$HMN" fit "$BATS_TEST_TMPDIR/unkidx" --memory 80GiB --context 8192 --json
		[ "$status" -eq 0 ]
		[ "${stderr_lines[0]}" = "hmn: $BATS_TEST_TMPDIR/unkidx: model_type 'frobnitz' is not one hmn knows: the weights are exact, from the index's total_size; the KV cache and activations are an upper bound: every layer full attention" ]
		echo "$output" | jq -e '.parts.weights_bytes == 16060522496 and .model.parameters == 8030261248
			and .model.dtype == "bf16" and .parts.kv_cache_bytes == 32 * 8192 * 2 * 1024 * 2'
		cp --sparse=always "$MODELS/Llama-3.1-8B-partial/model-00001-of-00004.safetensors" "$BATS_TEST_TMPDIR/unkidx/"
	done
	[ "${stderr_lines[1]}" = "hmn: $BATS_TEST_TMPDIR/unkidx: note: 3 of 4 shards not downloaded (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors): their weights priced from the index's total_size" ]
	# config.json alone still refused, its message true: the index would price it.
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/unkidx/config.json" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/unkidx/config.json: model_type 'frobnitz' is not one hmn knows: its size cannot be read from config.json alone (give hmn the model's folder: its weights' safetensors headers, or its model.safetensors.index.json)" ]
}

@test "fit: an unknown model_type around a text_config hmn knows, with a vision_config: refused alone, priced beside its index" {
	# llava-hf/llava-1.5-7b-hf's config.json (tests/fixtures/fit) as a family hmn does not know: its
	# llama text_config was priced, the image tower left out, exit 0, from config.json alone.
	mkdir "$BATS_TEST_TMPDIR/frob"
	jq '.model_type = "frob_llava"' "$TESTS_DIR/fixtures/fit/llava-1.5-7b-hf/config.json" >"$BATS_TEST_TMPDIR/frob/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/frob" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/frob/config.json: model_type 'frob_llava' is not one hmn knows: its image tower's size cannot be read from config.json alone (give hmn the model's folder: its weights' safetensors headers, or its model.safetensors.index.json)" ]
	# Beside its index (trimmed to llava-1.5-7b-hf's total_size, 14,126,854,144 bytes: 7,063,427,072
	# parameters in fp16, and two of its weight_map's names): the weights are the index's, tower included.
	echo '{"metadata":{"total_size":14126854144},"weight_map":{"language_model.model.layers.31.mlp.up_proj.weight":"model-00003-of-00003.safetensors","vision_tower.vision_model.encoder.layers.23.mlp.fc2.weight":"model-00003-of-00003.safetensors"}}' \
		>"$BATS_TEST_TMPDIR/frob/model.safetensors.index.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/frob" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "hmn: $BATS_TEST_TMPDIR/frob: its vision_config (of frob_llava) is not one hmn prices: the image tower is in weights (the index's total_size), not in parameters, and --text-only cannot leave it out" ]
	echo "$output" | jq -e '.parts.weights_bytes == 14126854144'
	# A model_type hmn knows (llava) with a tower it does not price: as before, the tower left out, said.
	jq '.vision_config.model_type = "frob_vision"' "$TESTS_DIR/fixtures/fit/llava-1.5-7b-hf/config.json" \
		>"$BATS_TEST_TMPDIR/frob/config.json"
	rm "$BATS_TEST_TMPDIR/frob/model.safetensors.index.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/frob" --memory 80GiB
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/frob: its vision_config (of llava) is not one hmn prices: the image tower is left out" ]
}

@test "fit: counts of one are said in the singular (1 byte, 1 tensor)" {
	printf x >"$BATS_TEST_TMPDIR/one.safetensors"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/one.safetensors" --memory 8GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/one.safetensors: not a safetensors file (1 byte)" ]
	run_split "$HMN" fit "$MODELS/hostile/zero-parameters" --memory 8GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *": its 1 tensor holds no parameters (each has a dimension of 0): no weights to price" ]]
}

@test "fit: what is not a model, truncated or hostile gives one line and exit 1" {
	for bad in hostile/not-a-model.txt hostile/truncated.gguf hostile/header-2-63.safetensors hostile/no-config \
		hostile/block-count-huge.gguf hostile/nested-arrays.gguf hostile/kv-count-huge.gguf \
		hostile/offsets-past-end.safetensors hostile/missing-shard nothing-here.gguf hostile/overlap \
		hostile/overlap.gguf hostile/twice-shards hostile/no-tensors hostile/no-tensors.gguf \
		hostile/shard-gone hostile/shape-wraps hostile/zero-parameters hostile/zero-parameters.gguf; do
		run_split "$HMN" fit "$MODELS/$bad" --memory 80GiB
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "${#stderr}" -gt 0 ] && [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "hmn: $MODELS/$bad"* ]]
	done
	run_split "$HMN" fit "$MODELS/hostile/header-2-63.safetensors" --memory 80GiB
	[[ "$stderr" == *"a safetensors header of 9223372036854775808 bytes"* ]]
	run_split "$HMN" fit "$MODELS/hostile/no-config" --memory 80GiB
	[[ "$stderr" == *"no config.json"* ]]
	run_split "$HMN" fit "$MODELS/hostile/truncated.gguf" --memory 80GiB
	[[ "$stderr" == *"truncated GGUF"* ]]
	# A FIFO named as a model is refused at once, not waited on for a writer.
	mkfifo "$BATS_TEST_TMPDIR/pipe.gguf"
	run_split timeout 10 "$HMN" fit "$BATS_TEST_TMPDIR/pipe.gguf" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/pipe.gguf: not a regular file" ]
}

# A folder holding only a config.json: Llama-2-7B's, with KEY set to VALUE ("-": left out), of
# model_type TYPE (default llama).
llama_config() {
	local dir="$BATS_TEST_TMPDIR/$1" key=$2 value=$3 type=${4:-llama} set='.[$key] = $value'
	[ "$value" != - ] || value=null set='del(.[$key])'
	mkdir -p "$dir"
	jq -n --arg key "$key" --argjson value "$value" --arg type "$type" '{model_type: $type, hidden_size: 4096,
		intermediate_size: 11008, num_attention_heads: 32, num_key_value_heads: 32, num_hidden_layers: 32,
		max_position_embeddings: 4096, vocab_size: 32000, torch_dtype: "float16"} | '"$set" >"$dir/config.json"
}

@test "fit: a config.json whose shape is missing or wrong is malformed: exit 1, one line naming the key" {
	# Each of these was once "FITS yes" with 0 parameters or no KV cache.
	llama_config whole num_hidden_layers 32
	run "$HMN" fit "$BATS_TEST_TMPDIR/whole" --memory 24GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 6738415616 and .model.layers == 32 and .parts.kv_cache_bytes > 0'
	while IFS='|' read -r name key value said type; do
		llama_config "$name" "$key" "$value" "$type"
		run_split "$HMN" fit "$BATS_TEST_TMPDIR/$name" --memory 24GiB --context 4096
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/$name/config.json: $said" ]
	done <<-'EOF'
		negative|num_hidden_layers|-1|num_hidden_layers: -1 is not a whole number of 1 or more
		fraction|num_hidden_layers|32.5|num_hidden_layers: 32.5 is not a whole number of 1 or more
		string|num_hidden_layers|"32"|num_hidden_layers: the string "32" is not a number
		missing|num_hidden_layers|-|model_type 'custom' is not one hmn knows: its size cannot be read from config.json alone (give hmn the model's folder: its weights' safetensors headers, or its model.safetensors.index.json)|custom
		null|vocab_size|null|key vocab_size is missing for model_type llama (nor padded_vocab_size)
		no-heads|num_attention_heads|0|num_attention_heads: 0 is not a whole number of 1 or more
		huge|hidden_size|1e300|hidden_size: 1e+300 is more than 16777216
		ragged|hidden_size|4100|num_attention_heads: 32 does not divide hidden_size, 4100, and there is no head_dim
		groups|num_key_value_heads|12|num_key_value_heads: 12 does not divide num_attention_heads, 32
	EOF
	# A model_type hmn does not know, and nothing else: refused as one.
	mkdir -p "$BATS_TEST_TMPDIR/bare"
	echo '{"model_type":"custom"}' >"$BATS_TEST_TMPDIR/bare/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/bare" --memory 24GiB --context 4096 --json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/bare/config.json: model_type 'custom' is not one hmn knows: its size cannot be read from config.json alone (give hmn the model's folder: its weights' safetensors headers, or its model.safetensors.index.json)" ]
}

@test "fit: a config.json leaving keys to transformers' defaults reads with them, quietly" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# google/gemma-3-4b-it's own config.json: its text_config names no heads and no vocabulary.
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --context 32768 --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 5 full layers of 32768 tokens, 29 sliding ones of their 1024: 4 KV heads x 256 x 2 (K and V) x 2 bytes a token.
	# The whole model as its card counts it, SigLIP tower included (4.30B); the text model's alone in weights.
	echo "$output" | jq -e '.model.parameters == 4300079472 and .model.layers == 34
		and .parts.weights_bytes == 3880263168 * 2 and .parts.vision_bytes == 419816304 * 2
		and .model.context_length == 131072 and .model.dtype == "bf16"
		and .parts.kv_cache_bytes == (5 * 32768 + 29 * 1024) * 4096'
	# llava-hf/llava-1.5-7b-hf's: its text_config names the vocabulary and the context, LlamaConfig the rest.
	run_split "$HMN" fit "$fixtures/llava-1.5-7b-hf/config.json" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.model.parameters == 7063427072 and .parts.vision_bytes == 324487168 * 2 and .model.layers == 32
		and .model.context_length == 4096 and .parts.kv_cache_bytes == 4096 * 512 * 1024'
	# A model_type and nothing else is LlamaConfig() itself: read, and said on stderr.
	mkdir -p "$BATS_TEST_TMPDIR/bare"
	echo '{"model_type":"llama"}' >"$BATS_TEST_TMPDIR/bare/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/bare" --memory 80GiB --json
	[ "$status" -eq 0 ]
	# LlamaConfig() names no torch_dtype: priced as float32, transformers' default, which the note says
	# (not "stored in float32": how it is stored config.json does not say).
	[ "${stderr_lines[0]}" = "hmn: $BATS_TEST_TMPDIR/bare: no shape of its own: read with transformers' defaults for llama (32 layers of width 4096)" ]
	[ "${stderr_lines[1]}" = "hmn: $BATS_TEST_TMPDIR/bare: note: names no torch_dtype: priced as float32 (transformers' default); vLLM and llama.cpp load it in 16 bits (--dtype bf16 prices that)" ]
	# One that names float32 is stored in it.
	echo '{"model_type":"llama","torch_dtype":"float32"}' >"$BATS_TEST_TMPDIR/bare/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/bare" --memory 80GiB --json
	[ "${stderr_lines[1]}" = "hmn: $BATS_TEST_TMPDIR/bare: note: stored in float32: priced as stored; vLLM and llama.cpp load it in 16 bits (--dtype bf16 prices that)" ]
	echo "$output" | jq -e '.model.parameters == 6738415616 and .model.context_length == 2048'
}

@test "fit: a GGUF whose metadata does not give its shape is malformed: exit 1, one line naming the key" {
	# Each of these was once "FITS yes" with no KV cache (no heads) or no layers.
	while IFS='|' read -r name said; do
		run_split "$HMN" fit "$MODELS/hostile/$name" --memory 80GiB --context 4096 --json
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: $MODELS/hostile/$name: $said" ]
	done <<-'EOF'
		no-heads.gguf|llama.attention.head_count is missing
		no-layers.gguf|llama.block_count is missing
		no-ffn.gguf|llama.feed_forward_length is missing
		heads-negative.gguf|llama.attention.head_count is not a whole number of 1 or more (a negative number, a float or a string)
		width-huge.gguf|llama.embedding_length: 1099511627776 is more than 16777216
		kv-heads-0.gguf|llama.attention.head_count_kv: 0 is not a whole number of 1 or more
		kv-heads-5.gguf|llama.attention.head_count_kv: 5 does not divide llama.attention.head_count, 32
		width-ragged.gguf|llama.attention.head_count: 32 does not divide llama.embedding_length, 4100, and there is no llama.attention.key_length
	EOF
	# Mamba's own: 0 heads, a feed-forward of 0, a recurrent state instead.
	run "$HMN" fit "$MODELS/mamba-130m.F32.gguf" --memory 8GiB --json
	[ "$status" -eq 0 ]
}

@test "fit: hybrids' config.json: each layer's kind from the config's own pattern" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# nvidia/Nemotron-H-8B-Base-8K: 24 Mamba-2 layers (a fixed state), 4 of attention, 24 MLPs:
	# 4 x 8192 x 2 x 8 x 128 x 2 = 134,217,728 bytes of cache, 24 x (30,720 x 2 + 1,048,576 x 4) = 102,137,856
	# of state (the SSM's in float32, as vLLM keeps Nemotron-H's).
	run_split "$HMN" fit "$fixtures/Nemotron-H-8B-Base-8K/config.json" --memory 80GiB --context 8192 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "nemotron_h" and .model.parameters == 8100852736
		and .parts.kv_cache_bytes == 236355584 and .model.warning == null'
	# The state does not grow with the context; the 4 attention layers' cache does.
	run_split "$HMN" fit "$fixtures/Nemotron-H-8B-Base-8K/config.json" --memory 80GiB --context 16384 --json
	echo "$output" | jq -e '.parts.kv_cache_bytes == 2 * 134217728 + 102137856'
	# Qwen3-Next-80B-A3B: gated DeltaNet in 36 layers, attention in every 4th.
	run_split "$HMN" fit "$fixtures/Qwen3-Next-80B-A3B-Instruct/config.json" --memory 200GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 79674391296 and .parts.kv_cache_bytes == 140181504'
	# state-spaces/mamba2-2.7b: refused for a missing key before; its state alone.
	run_split "$HMN" fit "$fixtures/mamba2-2.7b/config.json" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 2702599680 and .parts.kv_cache_bytes == 171900928'
	# AI21-Jamba-1.5-Mini (attention every 8th layer from the 4th), granite-4.0-h-tiny (layer_types),
	# Llama-4-Scout (its RoPE layers' cache a chunk of 8192: 12 x 16384 + 36 x 8192 tokens x 4096 bytes).
	run_split "$HMN" fit "$fixtures/AI21-Jamba-1.5-Mini/config.json" --memory 200GiB --context 4096 --json
	echo "$output" | jq -e '.model.parameters == 51570323328 and .parts.kv_cache_bytes == 75825152'
	run_split "$HMN" fit "$fixtures/granite-4.0-h-tiny/config.json" --memory 80GiB --context 4096 --json
	echo "$output" | jq -e '.model.parameters == 6939037248 and .parts.kv_cache_bytes == 62584832'
	run_split "$HMN" fit "$fixtures/Llama-4-Scout-17B-16E/config.json" --memory 400GiB --context 16384 --json
	echo "$output" | jq -e '.parts.kv_cache_bytes == 2013265920'
	# Falcon-H1-0.5B-Instruct: every layer attention and a Mamba-2 mixer, both kept: 36 x (4096 x 512
	# bytes of cache + 403,968 of state).
	run_split "$HMN" fit "$fixtures/falcon-h1-0.5b-instruct/config.json" --memory 24GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "falcon_h1" and .model.parameters == 521411104
		and .parts.kv_cache_bytes == 90040320 and .model.warning == null'
	tmp="$BATS_TEST_TMPDIR/falcon-h1"
	mkdir -p "$tmp"
	jq '.mamba_d_head = 32' "$fixtures/falcon-h1-0.5b-instruct/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp/config.json" --memory 24GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"config.json: mamba_d_head: 32 x 24 heads is not the mixer's width, 1536"* ]]
	# A pattern of the wrong length: refused naming the file and the key.
	tmp="$BATS_TEST_TMPDIR/nemotron"
	mkdir -p "$tmp"
	jq '.hybrid_override_pattern = "M-*"' "$fixtures/Nemotron-H-8B-Base-8K/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp/config.json" --memory 80GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"config.json: hybrid_override_pattern has 3 letters for 52 layers"* ]]
}

@test "fit: Zamba2 and Zamba from their config.json: shared blocks counted once, a cache in each hybrid layer, a state in every layer" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# Zamba2-2.7B-Instruct-v2: 54 Mamba-2 mixers, 2 shared blocks taken by 9 hybrid layers (each its
	# own linear and MLP LoRA): 2,662,214,560 parameters (test-model.c works them out), bf16. At 4096
	# tokens: 9 x 4096 x 2 x 32 x 160 x 2 of cache + 54 x (3 x 5248 + 64 x 5120) x 2 of state.
	run_split "$HMN" fit "$fixtures/Zamba2-2.7B-Instruct-v2/config.json" --memory 24GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "zamba2" and .model.parameters == 2662214560
		and .model.dtype == "bf16" and .model.layers == 54 and .model.context_length == 4096
		and .parts.weights_bytes == 5324429120 and .parts.kv_cache_bytes == 792064512
		and .model.warning == null'
	# The cache grows with the hybrid layers alone: 8192 tokens add 754,974,720 bytes, the state none.
	run_split "$HMN" fit "$fixtures/Zamba2-2.7B-Instruct-v2/config.json" --memory 24GiB --context 8192 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.parts.kv_cache_bytes == 792064512 + 754974720'
	run_split "$HMN" fit "$fixtures/Zamba2-2.7B-Instruct-v2/config.json" --memory 24GiB --context 4096
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "hmn fit: Zamba2-2.7B-Instruct-v2: zamba2, 2.66B parameters (bf16), 4096 tokens x 1 sequence" ]
	# Hostile keys: one line naming the file and the key, exit 1.
	tmp="$BATS_TEST_TMPDIR/zamba2"
	mkdir -p "$tmp"
	jq '.n_mamba_heads = 7' "$fixtures/Zamba2-2.7B-Instruct-v2/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp/config.json" --memory 24GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"config.json: n_mamba_heads: 7 does not divide the mixer's width, 5120"* ]]
	jq '.layers_block_type[3] = "attention"' "$fixtures/Zamba2-2.7B-Instruct-v2/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp/config.json" --memory 24GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'config.json: layers_block_type[3] is not "mamba" or "hybrid"'* ]]
	[ "${#lines[@]}" -eq 0 ]
	# The format before transformers read Zamba2 ("m" and "g", state_size): refused, not guessed, saying
	# what it is (it said only that "m" was not "mamba" or "hybrid").
	run_split "$HMN" fit "$fixtures/Zamba2-1.2B-4f8e85c/config.json" --memory 24GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $fixtures/Zamba2-1.2B-4f8e85c/config.json: layers_block_type[0] is \"m\": Zyphra's format from before transformers ('m'/'g'), which transformers' Zamba2 cannot load either; a later revision of the model's config.json reads" ]
	# Zamba (v1), Zamba-7B-v1: 76 Mamba mixers, one shared block taken by 13 layers: 7,232,490,496
	# parameters; at 4096 tokens 13 x 4096 x 2 x 16 x 464 x 2 of cache, 76 x 19 x 7424 x 2 of state.
	run_split "$HMN" fit "$fixtures/Zamba-7B-v1/config.json" --memory 24GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "zamba" and .model.parameters == 7232490496
		and .parts.weights_bytes == 14464980992 and .parts.kv_cache_bytes == 1602693120 and .model.warning == null'
	jq 'del(.num_key_value_heads)' "$fixtures/Zamba-7B-v1/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp/config.json" --memory 24GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"config.json: key num_key_value_heads is missing for model_type zamba"* ]]
}

@test "fit: the model is named by its folder however the folder was typed, from inside it too" {
	cd "$MODELS/Meta-Llama-3-8B"
	for path in . ./ config.json ./config.json model-00002-of-00004.safetensors "$MODELS/Meta-Llama-3-8B/"; do
		run_split "$HMN" fit --memory 80GiB "$path" --json
		[ "$status" -eq 0 ]
		[ "$(jq -c '[.model.name, .model.path]' <<<"$output")" = "[\"Meta-Llama-3-8B\",\"$path\"]" ]
	done
	run_split "$HMN" fit --memory 80GiB .
	[ "${lines[0]}" = "hmn fit: Meta-Llama-3-8B: llama, 8.03B parameters (bf16), 8192 tokens x 1 sequence" ]
}

@test "fit: folders as downloads leave them: a link keeps its name, a stray adapter, stale links" {
	# A link named for the model (to a Hugging Face cache snapshot, say): the link's name, not the target's.
	ln -s "$MODELS/Meta-Llama-3-8B" "$BATS_TEST_TMPDIR/MyLlama"
	for typed in MyLlama MyLlama/ MyLlama/. MyLlama/./ MyLlama/config.json; do
		run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/$typed" --json
		[ "$status" -eq 0 ]
		[ "$(jq -r '.model.name' <<<"$output")" = MyLlama ]
	done
	# A name ending in ':' is a name on POSIX (on Windows, a drive).
	mkdir "$BATS_TEST_TMPDIR/weird:"
	cp "$MODELS/Meta-Llama-3-8B/config.json" "$BATS_TEST_TMPDIR/weird:/"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/weird:" --json
	[ "$(jq -r '.model.name' <<<"$output")" = "weird:" ]
	# A GGUF and a LoRA's safetensors, no config.json: the GGUF is the model (the safetensors cannot be priced).
	mkdir "$BATS_TEST_TMPDIR/gguf-adapter"
	ln -s "$MODELS/llama-3.2-1b.Q8_0.gguf" "$BATS_TEST_TMPDIR/gguf-adapter/llama-3.2-1b.Q8_0.gguf"
	cp "$MODELS/hostile/shard-gone/model-00001-of-00003.safetensors" "$BATS_TEST_TMPDIR/gguf-adapter/adapter_model.safetensors"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter" --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.model.format, .model.name]' <<<"$output")" = '["gguf","Llama 3.2 1B"]' ]
	# Weights that are a link leading nowhere (a Hugging Face cache blob deleted): said, never the
	# config.json beside them priced alone.
	mkdir "$BATS_TEST_TMPDIR/broken"
	cp "$MODELS/Meta-Llama-3-8B/config.json" "$BATS_TEST_TMPDIR/broken/"
	ln -s /nonexistent/blob "$BATS_TEST_TMPDIR/broken/model.safetensors"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/broken"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/broken: model.safetensors leads nowhere (its file is gone)" ]
	# A stale link beside the weights (a quant deleted since) spoils nothing, nor does a folder named x.gguf.
	ln -s /nonexistent/blob "$BATS_TEST_TMPDIR/gguf-adapter/old.Q4_0.gguf"
	mkdir "$BATS_TEST_TMPDIR/gguf-adapter/cache.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter" --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.model.format' <<<"$output")" = gguf ]
	# A vision model's projector beside it is not a second model but its vision part; alone, it is said to be none.
	ln -s "$MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf" "$BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter" --json
	[ "$(jq -c '[.model.format, .model.name, .parts.vision_bytes > 0]' <<<"$output")" = '["gguf","Llama 3.2 1B",true]' ]
	mkdir "$BATS_TEST_TMPDIR/projector"
	ln -s "$MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf" "$BATS_TEST_TMPDIR/projector/mmproj-model-f16.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/projector"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/projector: mmproj-model-f16.gguf is a vision model's projector, not a model: fit the model it serves" ]
	# A file named mmproj that is another model's GGUF is no projector: said, not priced as one; the model
	# is still priced (a warning, not a failure: --text-only needs no projector).
	ln -sf "$MODELS/moe-tiny.Q8_0.gguf" "$BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter" --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/gguf-adapter: its vision projector cannot be read, so the vision part is left out: $BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf: general.architecture is 'llama', not 'clip': not a vision projector" ]
	[ "$(jq -c '[.model.name, .parts.vision_bytes, (.model.warning | startswith("its vision projector cannot be read"))]' <<<"$output")" = '["Llama 3.2 1B",null,true]' ]
	# A projector whose link leads nowhere (its blob deleted): the same, never silently ignored.
	ln -sf /nonexistent/blob "$BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter"
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/gguf-adapter: its vision projector cannot be read, so the vision part is left out: $BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf: no such file" ]
	rm "$BATS_TEST_TMPDIR/gguf-adapter/mmproj-model-f16.gguf"
	# The model's own link leading nowhere, beside its projector: the link said, not "a projector, not a model".
	mkdir "$BATS_TEST_TMPDIR/gguf-gone"
	ln -s /nonexistent/blob "$BATS_TEST_TMPDIR/gguf-gone/gemma-3-4b-it-Q4_K_M.gguf"
	ln -s "$MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf" "$BATS_TEST_TMPDIR/gguf-gone/mmproj-F16.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-gone"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/gguf-gone: gemma-3-4b-it-Q4_K_M.gguf leads nowhere (its file is gone)" ]
	# Two models, no config.json: which is meant cannot be told, and the reason is the right one.
	ln -s "$MODELS/moe-tiny.Q8_0.gguf" "$BATS_TEST_TMPDIR/gguf-adapter/moe-tiny.Q8_0.gguf"
	run_split "$HMN" fit --memory 80GiB "$BATS_TEST_TMPDIR/gguf-adapter"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/gguf-adapter: no config.json, and GGUF files of more than one model (llama-3.2-1b.Q8_0.gguf, moe-tiny.Q8_0.gguf): name the one to fit" ]
}

@test "fit: a vision-language model's tower and projector are the vision part; --text-only leaves it out" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# google/gemma-3-4b-it's config.json: the row between weights and kv_cache, in the total.
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --context 8192 --bytes
	[ "$status" -eq 0 ]
	[ "$(sed -n 3,5p <<<"$output" | awk '{print $1}' | tr '\n' ' ')" = "weights vision kv_cache " ]
	[ "$(awk '$1 == "vision" {print $2}' <<<"$output")" = 839632608 ]
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --context 8192 --json
	with=$(jq '.total_bytes' <<<"$output")
	[ "$(jq -c '[.model.parameters, .parts.vision_bytes]' <<<"$output")" = '[4300079472,839632608]' ]
	# --text-only: no row, vision_bytes null, the total less by the tower and its margin; the model is still all of it.
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --context 8192 --text-only --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.model.parameters, .parts.vision_bytes]' <<<"$output")" = '[4300079472,null]' ]
	[ $(( with - $(jq '.total_bytes' <<<"$output") )) -ge 839632608 ]
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --text-only
	! grep -q '^vision' <<<"$output"
	# Qwen/Qwen2-VL-7B-Instruct's safetensors (its tensors' names: visual.*) price as its config.json does.
	run_split "$HMN" fit "$MODELS/Qwen2-VL-7B-Instruct" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.model.format, .model.parameters, .parts.weights_bytes, .parts.vision_bytes]' <<<"$output")" = \
	  '["safetensors",8291375616,15231233024,1351518208]' ]
	run_split "$HMN" fit "$MODELS/Qwen2-VL-7B-Instruct/config.json" --memory 80GiB --json
	[ "$(jq -c '[.model.format, .model.parameters, .parts.weights_bytes, .parts.vision_bytes]' <<<"$output")" = \
	  '["config",8291375616,15231233024,1351518208]' ]
	# A GGUF folder: the model and its mmproj (f16 of two types beside it, said); the GGUF alone is the model alone.
	run_split "$HMN" fit "$MODELS/gemma-3-4b-it-GGUF" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $MODELS/gemma-3-4b-it-GGUF: note: the vision projector is mmproj-F16.gguf, one of 2 beside the model" ]
	# 419,816,304 parameters: the matrices in f16, norms and biases in f32, each padded to 32 bytes.
	[ "$(jq -c '[.model.parameters, .parts.vision_bytes]' <<<"$output")" = '[1419702256,840434112]' ]
	run_split "$HMN" fit "$MODELS/gemma-3-4b-it-GGUF" --memory 80GiB --text-only --json
	[ "$(jq -c '.parts.vision_bytes' <<<"$output")" = null ]
	# llama.cpp loads the mmproj whole on one GPU: --gpus 2 divides the model, not the projector.
	run_split "$HMN" fit "$MODELS/gemma-3-4b-it-GGUF" --memory 80GiB --gpus 2 --json
	[ "$(jq -c '[.parts.weights_bytes, .parts.vision_bytes]' <<<"$output")" = '[531386624,840434112]' ]
	# Projectors as their repositories name them: "mmproj" anywhere in the name, in any case.
	for name in gemma-3-4b-it-mmproj-f16.gguf llava-v1.5-7b-mmproj-model-f16.gguf Gemma_MMPROJ-F16.gguf; do
		rm -rf "$BATS_TEST_TMPDIR/named"
		mkdir "$BATS_TEST_TMPDIR/named"
		ln -s "$MODELS/gemma-3-4b-it-GGUF/gemma-3-1b.Q8_0.gguf" "$BATS_TEST_TMPDIR/named/gemma-3-4b-it-Q8_0.gguf"
		ln -s "$MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf" "$BATS_TEST_TMPDIR/named/$name"
		run_split "$HMN" fit "$BATS_TEST_TMPDIR/named" --memory 80GiB --json
		[ "$status" -eq 0 ]
		[ "$(jq -c '.parts.vision_bytes' <<<"$output")" = 840434112 ]
	done
	# A projector that is a Git LFS pointer (a clone without git-lfs): the model priced, the projector
	# said; with --text-only too, where no projector is needed.
	printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 851251104\n' \
		>"$BATS_TEST_TMPDIR/named/mmproj-F16.gguf"
	rm "$BATS_TEST_TMPDIR/named/$name"
	for only in "" --text-only; do
		run_split "$HMN" fit "$BATS_TEST_TMPDIR/named" --memory 80GiB --json $only
		[ "$status" -eq 0 ]
		[ "$(jq -c '[.model.parameters, .parts.vision_bytes]' <<<"$output")" = '[999885952,null]' ]
		[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/named: its vision projector cannot be read, so the vision part is left out: $BATS_TEST_TMPDIR/named/mmproj-F16.gguf: a Git LFS pointer, not the weights: they were not downloaded (git lfs pull, or hf download)" ]
	done
	run_split "$HMN" fit "$MODELS/gemma-3-4b-it-GGUF/gemma-3-1b.Q8_0.gguf" --memory 80GiB --json
	[ "$(jq -c '[.model.parameters, .parts.vision_bytes]' <<<"$output")" = '[999885952,null]' ]
	run_split "$HMN" fit "$MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $MODELS/gemma-3-4b-it-GGUF/mmproj-F16.gguf: a vision model's projector (general.architecture clip), not a model: fit the model it serves, or the folder holding both" ]
	# A text model: no vision part, no row; --text-only changes nothing.
	run_split "$HMN" fit "$MODELS/llama-3.2-1b.Q8_0.gguf" --memory 80GiB --text-only --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.parts.vision_bytes' <<<"$output")" = null ]
}

@test "fit: Idefics3, SmolVLM, Fuyu, Llama 4, MiniCPM-V 2.6 and Molmo's towers from their config.json, the vision part; --text-only leaves it out" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# name parameters vision_parameters cache-bytes-a-token (bf16, 4096 tokens): HuggingFaceTB/SmolVLM-Instruct (2.25B),
	# HuggingFaceM4/Idefics3-8B-Llama3 (8.46B), adept/fuyu-8b (9.41B), meta-llama/Llama-4-Scout-17B-16E (109B; its
	# RoPE layers cache a chunk of 8192 tokens, all 4096 here), openbmb/MiniCPM-V-2_6 (8.1B).
	while read -r name parameters vision per_token; do
		run_split "$HMN" fit "$fixtures/$name/config.json" --memory 400GiB --context 4096 --json
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		echo "$output" | jq -e --argjson p "$parameters" --argjson v "$vision" --argjson t "$per_token" \
			'.model.parameters == $p and .parts.vision_bytes == 2 * $v and .parts.weights_bytes == 2 * ($p - $v)
			and .parts.kv_cache_bytes == 4096 * $t and .model.warning == null'
		with=$(jq '.total_bytes' <<<"$output")
		run_split "$HMN" fit "$fixtures/$name/config.json" --memory 400GiB --context 4096 --text-only --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e --argjson p "$parameters" --argjson v "$vision" \
			'.model.parameters == $p and .parts.vision_bytes == null and .parts.weights_bytes == 2 * ($p - $v)'
		[ $(( with - $(jq '.total_bytes' <<<"$output") )) -ge $(( 2 * vision )) ]
	done <<-END
		SmolVLM-Instruct 2246272880 434220912 196608
		Idefics3-8B-Llama3 8462086384 431800560 131072
		fuyu-8b 9408238592 11063296 589824
		Llama-4-Scout-17B-16E 108641793536 871932416 196608
		MiniCPM-V-2_6 8099175152 486411504 57344
	END
	# A hostile key of theirs is one line naming file and key, exit 1.
	tmp="$BATS_TEST_TMPDIR/smolvlm"
	mkdir -p "$tmp"
	jq '.scale_factor = 1e300' "$fixtures/SmolVLM-Instruct/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $tmp/config.json: scale_factor: 1.0000000000000001e+300 is more than 64" ]
	jq '.vision_config.projector_input_dim = "4096"' "$fixtures/Llama-4-Scout-17B-16E/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $tmp/config.json: vision_config.projector_input_dim: a string is not a number" ]
	jq '.patch_size = 0' "$fixtures/fuyu-8b/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $tmp/config.json: patch_size: 0 is not a whole number of 1 or more" ]
	# A MiniCPM-V of another version is another model: refused, never priced as 2.6.
	jq '.version = 2.5' "$fixtures/MiniCPM-V-2_6/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp" --memory 80GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"config.json: model_type 'minicpmv' of a version other than 2.6 is not one hmn knows"* ]]
	# allenai/Molmo-7B-D-0924 (8.02B), stored in float32: its tower fixed in its code, priced as stored, said.
	run_split "$HMN" fit "$fixtures/Molmo-7B-D-0924" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 8021025280 and .parts.vision_bytes == 4 * 404950016
		and .parts.weights_bytes == 4 * (8021025280 - 404950016) and .parts.kv_cache_bytes == 4096 * 114688'
	[ "$stderr" = "hmn: $fixtures/Molmo-7B-D-0924: note: stored in float32: priced as stored; vLLM and llama.cpp load it in 16 bits (--dtype bf16 prices that)" ]
	# With a --dtype the note is moot: it said "(--dtype bf16 prices that)" to one who had just given it.
	for dtype in bf16 f16 fp8 f32; do
		run_split "$HMN" fit "$fixtures/Molmo-7B-D-0924" --memory 80GiB --dtype "$dtype"
		[ -z "$stderr" ]
		run_split "$HMN" fit "$fixtures/smollm3-3b" --memory 80GiB --dtype "$dtype"
		[ -z "$stderr" ]
	done
	run_split "$HMN" fit "$fixtures/Molmo-7B-D-0924" --memory 80GiB --context 4096 --text-only --json
	echo "$output" | jq -e '.parts.vision_bytes == null and .parts.weights_bytes == 4 * (8021025280 - 404950016)'
	# A Molmo of another text model (MolmoE's experts) is refused from its config.json, naming the key.
	jq '.moe_num_experts = 64' "$fixtures/Molmo-7B-D-0924/config.json" >"$tmp/config.json"
	run_split "$HMN" fit "$tmp" --memory 80GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == "hmn: $tmp/config.json: moe_num_experts: 64: MolmoE's experts are not what hmn reads of Molmo"* ]]
}

@test "fit --memory: a size; its errors never suggest the share it refuses" {
	run_split "$HMN" fit --memory 16EiB x.gguf
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: invalid SIZE '16EiB' for --memory (e.g. 24GiB, 512M, 1.5T)"* ]]
	run_split "$HMN" fit --memory 50% x.gguf
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: --memory takes a size (e.g. 24GiB), not a share of a GPU"* ]]
}

@test "fit --dtype Q4_K_M: llama.cpp's file types, in any case, priced per tensor as llama-quantize types them" {
	# Meta-Llama-3-8B's shape at Q4_K_M: 193 tensors Q4_K, 33 Q6_K (attn_v and ffn_down in 16
	# layers each, the output), 65 norms f32: 4,912,898,048 bytes, llama.cpp's own table
	# (tools/quantize) says 4.58G for the file, its 7.8 MB of metadata included. Loaded as llama.cpp
	# loads that GGUF: its token_embd (295,501,824 of Q4_K) on the host, 4,617,396,224 on the GPU.
	for t in Q4_K_M q4_k_m Q4_k_M; do
		run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype "$t" --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e '.weights_dtype == "q4_k_m" and .parts.weights_bytes == 4912898048 - 295501824
			and .model.dtype == "bf16"'
	done
	# The config.json alone prices it the same; the table says the type as typed, in lower case.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B/config.json" --memory 80GiB --dtype Q4_K_M --json
	[ "$(jq .parts.weights_bytes <<<"$output")" -eq $((4912898048 - 295501824)) ]
	# A tied model's token_embd is its output head too: on the GPU, as before (Qwen2.5-0.5B).
	run_split "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --memory 80GiB --dtype Q4_K_M --json
	[ "$(jq .parts.weights_bytes <<<"$output")" -eq 391859712 ]
	# int4, fp8, bf16 are vLLM's loads: the embeddings on the GPU.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype int4 --json
	[ "$(jq .parts.weights_bytes <<<"$output")" -eq 5728378880 ]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype Q4_K_M
	[ "$status" -eq 0 ]
	[[ "${output%%$'\n'*}" == *"(q4_k_m)"* ]]
	# A GGUF is repriced by the same rules (its token_embd stays in host memory, as llama.cpp keeps it): the same.
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --memory 80GiB --dtype q4_k_m --json
	[ "$(jq .parts.weights_bytes <<<"$output")" -eq $((4912898048 - 295501824)) ]
	# Q8_0 is the file type (its output q8_0 too; its token_embd's 558,170,112 on the host), q4_k still
	# every matrix in Q4_K.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype Q8_0 --json
	[ "$(jq .parts.weights_bytes <<<"$output")" -eq $((8532934656 - 558170112)) ]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype q4_k --json
	[ "$(jq -r .weights_dtype <<<"$output")" = "q4_k" ]
	[ "$(jq .parts.weights_bytes <<<"$output")" -lt 4912898048 ]
	# A name that is none: a usage error that lists the file types; --kv-dtype takes none of them.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype Q4_K_X
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: invalid --dtype 'Q4_K_X' (f32, bf16, f16, fp8, int8, int4, a GGUF type such as q4_k, or a llama.cpp file type: Q2_K, "*", Q4_K_M, "*", IQ4_XS, IQ4_NL, TQ1_0, TQ2_0, MXFP4_MOE; any case)"$'\n'"Try 'hmn fit --help'." ]]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --kv-dtype Q4_K_M
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: invalid --kv-dtype 'Q4_K_M'"* ]]
}

@test "fit usage errors: exit 2 and the command's help named" {
	for args in "" "a.gguf b.gguf" "--memory 50% x.gguf" "--dtype q9_z x.gguf" "--format csv x.gguf" \
		"--margin 0.5 x.gguf" "--context 0 x.gguf" "--attention slow x.gguf" "--memory 24GiB --device 0 x.gguf"; do
		run_split "$HMN" fit $args
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"Try 'hmn fit --help'." ]]
	done
}

@test "fit MAX_CONTEXT: capped at the trained context after rope_scaling; past even that, warned and capped" {
	# The rope_scaling Qwen2.5's model cards (Qwen2.5-7B-Instruct's README, "Processing Long Texts")
	# tell users to add: YaRN x4 of 32768, 131072 tokens. MAX_CONTEXT said 32768 while 17 sequences
	# of 100000 fitted.
	cp -r "$MODELS/Qwen2.5-0.5B-Instruct" "$BATS_TEST_TMPDIR/yarn"
	jq '.rope_scaling = {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}' \
		"$MODELS/Qwen2.5-0.5B-Instruct/config.json" >"$BATS_TEST_TMPDIR/yarn/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/yarn" --context 100000 --memory 80GiB
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[9]}" = "  -  80.0GiB  yes        131072         62  (--memory)" ]
	# Without rope_scaling: capped at the trained 32768, and 100000 past it is the warning.
	run_split "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --context 100000 --memory 80GiB --json
	[ "$stderr" = "hmn: $MODELS/Qwen2.5-0.5B-Instruct: context 100000 is beyond its 32768 trained tokens: estimated as asked" ]
	echo "$output" | jq -e '.gpus[0].max_context == 32768 and .gpus[0].fits and .context == 100000'
	# Llama-3's 8192 (no rope_scaling) at 32768: fits as asked, MAX_CONTEXT the limit, warned.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --context 32768 --memory 80GiB
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $MODELS/Meta-Llama-3-8B: context 32768 is beyond its 8192 trained tokens: estimated as asked" ]
	[ "${lines[9]}" = "  -  80.0GiB  yes          8192         14  (--memory)" ]
	# EXAONE 4.0 1.2B: 65536 trained, rope_type llama3 x 16 of 8192. vLLM stretches no llama3 (its
	# max_position_embeddings is the stretched one): MAX_CONTEXT said 131072 and 131072 warned nothing.
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/EXAONE-4.0-1.2B" --memory 24GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.gpus[0].max_context == 65536 and .context == 65536'
	# Every layer full attention (its real config's layer_types), not 3:1 sliding: 30 x 8 x 64 x 2 x 2 B a token.
	echo "$output" | jq -e '.parts.kv_cache_bytes == 61440 * 65536'
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/EXAONE-4.0-1.2B" --context 131072 --memory 24GiB
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $TESTS_DIR/fixtures/fit/EXAONE-4.0-1.2B: context 131072 is beyond its 65536 trained tokens: estimated as asked" ]
}

@test "fit: several context keys, the least of them as vLLM takes it (Qwen-7B's seq_length 8192, not 32768)" {
	# Qwen (v1) 7B writes max_position_embeddings 32768 beside seq_length 8192: the first key said 32768,
	# and the KV of that default context "did not fit" 24 GiB.
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/Qwen-7B-Chat-Cantonese" --memory 24GiB --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.context == 8192 and .model.context_length == 8192 and .gpus[0].fits
		and .gpus[0].max_context == 8192'
}

@test "fit --context 32k: k or K is 1024 tokens, as model cards say their contexts; anything else a usage error" {
	config="$TESTS_DIR/fixtures/fit/smollm3-3b/config.json"
	for v in 32k 32K 32768; do
		run_split "$HMN" fit "$config" --dtype bf16 --memory 80GiB --context "$v" --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e '.context == 32768'
	done
	for v in k 1.5k 0k 4194304k 32kk 32m; do
		run_split "$HMN" fit "$config" --memory 80GiB --context "$v"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "hmn: invalid --context '$v' (a whole number, 1 to 4294967295, or of k: 32k is 32768)"* ]]
	done
	# --batch and --gpus stay plain counts.
	run_split "$HMN" fit "$config" --memory 80GiB --batch 2k
	[ "$status" -eq 2 ]
}

@test "fit hf://ORG/NAME and https://huggingface.co/ORG/NAME: exit 1, saying hmn never uses the network and what to type" {
	for address in hf://meta-llama/Llama-3.1-8B https://huggingface.co/meta-llama/Llama-3.1-8B; do
		run_split "$HMN" fit "$address" --memory 24GiB
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: $address: no such file or folder: hmn never uses the network; meta-llama/Llama-3.1-8B, as ORG/NAME, is looked for in the local Hugging Face cache (hf download meta-llama/Llama-3.1-8B puts it there)" ]
	done
}

@test "fit --memory under 1MiB: a usage error saying the bytes it is (a SIZE without a unit is bytes)" {
	# --memory 24 planned for a GPU of 24 bytes: "FREE 0MiB ... no", exit 4.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 24
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "hmn: --memory 24 is 24 bytes: did you mean 24GiB?" ]
	[ "${stderr_lines[1]}" = "Try 'hmn fit --help'." ]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory=1
	[ "${stderr_lines[0]}" = "hmn: --memory 1 is 1 byte: did you mean 1GiB?" ]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 0
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "hmn: --memory 0 is 0 bytes: a GPU has more than 1MiB (e.g. 24GiB)" ]
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 1023K
	[ "${stderr_lines[0]}" = "hmn: --memory 1023K is 1047552 bytes: a GPU has more than 1MiB (e.g. 24GiB)" ]
	# 1MiB is a GPU's size, if a small one: planned (and not enough).
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 1MiB
	[ "$status" -eq 4 ]
}

@test "fit --kv-dtype for a GGUF: a type llama.cpp's cache takes, else a usage error" {
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --memory 80GiB --kv-dtype q4_k
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: --kv-dtype q4_k: llama.cpp's cache takes f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 or q5_1
Try 'hmn fit --help'." ]
	for t in f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1; do
		run "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --memory 80GiB --kv-dtype "$t" --json
		[ "$status" -eq 0 ]
		[ "$(jq -r .kv_dtype <<<"$output")" = "$t" ]
	done
	# vLLM's fp8 cache, for safetensors.
	run "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --kv-dtype fp8 --json
	[ "$status" -eq 0 ]
	# For safetensors or a config.json, what vLLM's cache takes; int4, q4_k, q8_0 priced a cache no engine makes.
	for t in int4 q4_k q8_0 q4_0; do
		for model in "$MODELS/Meta-Llama-3-8B" "$TESTS_DIR/fixtures/fit/smollm3-3b/config.json"; do
			run_split "$HMN" fit "$model" --memory 80GiB --kv-dtype "$t"
			[ "$status" -eq 2 ]
			[ -z "$output" ]
			[ "$stderr" = "hmn: --kv-dtype $t: vLLM's cache (safetensors, config.json) takes f32, f16, bf16 or fp8
Try 'hmn fit --help'." ]
		done
	done
	for t in f32 f16 bf16 fp8; do
		run "$HMN" fit "$TESTS_DIR/fixtures/fit/smollm3-3b/config.json" --memory 80GiB --kv-dtype "$t" --json
		[ "$status" -eq 0 ]
	done
	# fp4 alone (E2M1, no block scales) priced every element at 4 bits, embeddings too, and was documented
	# nowhere: refused as the load no engine makes it is; bitsandbytes' nf4 stays refused (no such load priced).
	for t in fp4 FP4 nf4; do
		run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --dtype "$t"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "hmn: invalid --dtype '$t'"* ]]
	done
	# A name that is no type: the list each format takes, not int4, q4_k, q8_0.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B" --memory 80GiB --kv-dtype f17
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: invalid --kv-dtype 'f17' (a GGUF's cache: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1; safetensors': f32, f16, bf16, fp8)"* ]]
}

@test "fit: a model without a trained context is a MODEL error: exit 1, one line saying to give --context" {
	for model in mamba-130m-hf hostile/no-context.gguf; do
		run_split "$HMN" fit "$MODELS/$model" --memory 8GiB
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: $MODELS/$model: its trained context is not in the file: give --context N" ]
	done
	run_split "$HMN" fit "$MODELS/hostile/no-context.gguf" --memory 8GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.context == 4096 and .gpus[0].max_context == 4096'
}

@test "fit: MAX_CONTEXT is capped at the trained context, whatever --context asks" {
	# llama-2-7b was trained on 4096 tokens: 80 GiB has room for more, MAX_CONTEXT says 4096.
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --memory 80GiB --context 8192 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.context == 8192 and .gpus[0].max_context == 4096'
}

@test "the README's 'Will it fit?' block is hmn's real output against the stand-in" {
	two_gpus 'proc gpu=0 pid=4242 used=20266876928 list=compute' 'proc gpu=1 pid=777 used=268435456 list=graphics'
	readme="$TESTS_DIR/../README.md"
	want=$(awk '/^## Will it fit\?/ { on = 1 } on && /^```/ { n++; next } on && n == 1' "$readme")
	[ -n "$want" ]
	got=$(awk '/^## Will it fit\?/ { on = 1 } on && /^```/ { n++; next } on && n == 1 && /^\$ / { print substr($0, 3) }' \
		"$readme" | while IFS= read -r command; do
		printf '$ %s\n' "$command"
		(cd "$MODELS" && PATH="$(dirname "$HMN"):$PATH" bash -c "$command" 2>&1)
		echo
	done)
	diff <(printf '%s\n' "$want") <(printf '%s\n' "${got%$'\n'}") | sed 's/^/# /' >&3 || true
	[ "${got%$'\n'}" = "$want" ]
}

@test "fit: a Git LFS pointer where the weights should be is said as one (a clone without git-lfs)" {
	dir="$BATS_TEST_TMPDIR/clone"
	mkdir -p "$dir"
	# A pointer as git-lfs writes it (its spec, v1): three lines of text.
	pointer() {
		printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 4976698672\n' >"$1"
	}
	pointer "$dir/model.safetensors"
	pointer "$dir/model.Q4_K_M.gguf"
	for file in model.safetensors model.Q4_K_M.gguf; do
		run_split "$HMN" fit "$dir/$file" --memory 80GiB
		[ "$status" -eq 1 ]
		[ "$stderr" = "hmn: $dir/$file: a Git LFS pointer, not the weights: they were not downloaded (git lfs pull, or hf download)" ]
	done
	# In a folder beside its config.json: the same line, naming the file.
	cp "$TESTS_DIR/fixtures/fit/llava-1.5-7b-hf/config.json" "$dir/"
	rm "$dir/model.Q4_K_M.gguf"
	run_split "$HMN" fit "$dir" --memory 80GiB
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"model.safetensors: a Git LFS pointer, not the weights"* ]]
	# Shards that are pointers beside an index with its total_size (Llama-3.1-8B's, 16,060,522,496
	# bytes) are shards not downloaded: priced from it, the note saying what they are.
	sharded="$BATS_TEST_TMPDIR/sharded"
	mkdir "$sharded"
	cp "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/config.json" "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/model.safetensors.index.json" "$sharded/"
	for n in 1 2 3 4; do
		pointer "$sharded/model-0000$n-of-00004.safetensors"
	done
	run_split "$HMN" fit "$sharded" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $sharded: note: 4 of 4 shards not downloaded (model-00001-of-00004.safetensors, model-00002-of-00004.safetensors and 2 more, Git LFS pointers (git lfs pull fetches them)): their weights priced from the index's total_size" ]
	echo "$output" | jq -e '.parts.weights_bytes == 16060522496 and .model.parameters == 8030261248'
	# One shard real, one a pointer, two not there.
	cp --sparse=always "$MODELS/Llama-3.1-8B-partial/model-00001-of-00004.safetensors" "$sharded/"
	rm "$sharded/model-00003-of-00004.safetensors" "$sharded/model-00004-of-00004.safetensors"
	run_split "$HMN" fit "$sharded" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $sharded: note: 3 of 4 shards not downloaded (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors, 1 of them a Git LFS pointer (git lfs pull fetches it)): their weights priced from the index's total_size" ]
	# Without a total_size the pointer cannot be priced: said as one.
	jq 'del(.metadata.total_size)' "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/model.safetensors.index.json" >"$sharded/model.safetensors.index.json"
	pointer "$sharded/model-00003-of-00004.safetensors"
	pointer "$sharded/model-00004-of-00004.safetensors"
	run_split "$HMN" fit "$sharded" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $sharded/model-00004-of-00004.safetensors: a Git LFS pointer, not the weights: they were not downloaded (git lfs pull, or hf download)" ]
}

@test "fit plans before the download: config.json and the index price the weights at its total_size, the shards missing in a note" {
	# meta-llama/Llama-3.1-8B's own config.json and index (tests/fixtures/fit/Llama-3.1-8B): what
	# hf download REPO config.json model.safetensors.index.json gives. Published: 8,030,261,248
	# parameters, total_size 16,060,522,496 bytes (bf16).
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/Llama-3.1-8B" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.format == "safetensors" and .model.parameters == 8030261248
		and .model.dtype == "bf16" and .model.layers == 32 and .model.name == "Llama-3.1-8B"
		and .parts.weights_bytes == 16060522496 and .model.warning == null'
	[ "$stderr" = "hmn: $TESTS_DIR/fixtures/fit/Llama-3.1-8B: note: 4 of 4 shards not downloaded (model-00001-of-00004.safetensors, model-00002-of-00004.safetensors and 2 more): their weights priced from the index's total_size" ]
	# Exit as usual: 4 where it does not fit; -q keeps the note to itself.
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/Llama-3.1-8B" --memory 8GiB -q
	[ "$status" -eq 4 ]
	[ -z "$stderr" ]
	# A download in progress: the shards here read, the rest priced from the index; the sum is total_size.
	for folder in Llama-3.1-8B-partial Llama-3.1-8B-three-of-four; do
		run_split "$HMN" fit "$MODELS/$folder" --memory 80GiB --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e '.parts.weights_bytes == 16060522496 and .model.parameters == 8030261248
			and .model.dtype == "bf16"'
	done
	[ "$stderr" = "hmn: $MODELS/Llama-3.1-8B-three-of-four: note: 1 of 4 shards not downloaded (model-00004-of-00004.safetensors): its weights priced from the index's total_size" ]
	run_split "$HMN" fit "$MODELS/Llama-3.1-8B-partial" --memory 80GiB
	[ "$stderr" = "hmn: $MODELS/Llama-3.1-8B-partial: note: 3 of 4 shards not downloaded (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors): their weights priced from the index's total_size" ]
	[ "${lines[0]}" = "hmn fit: Llama-3.1-8B-partial: llama, 8.03B parameters (bf16), 131072 tokens x 1 sequence" ]
	# An index whose tensors' names stop at layer 19 beside a config of 32 layers: doubted.
	mkdir -p "$BATS_TEST_TMPDIR/few"
	cp "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/config.json" "$BATS_TEST_TMPDIR/few/"
	jq '.weight_map |= with_entries(select(.key | test("layers\\.(2[0-9]|3[01])\\.") | not))' \
		"$TESTS_DIR/fixtures/fit/Llama-3.1-8B/model.safetensors.index.json" >"$BATS_TEST_TMPDIR/few/model.safetensors.index.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/few" --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.warning <<<"$output")" = "the index names tensors of layers up to 19, config.json 32 layers: they may not be one model's" ]
}

@test "fit: an index that cannot price the shards not downloaded is malformed: exit 1, one line naming the file and key" {
	while IFS='|' read -r name said; do
		run_split "$HMN" fit "$MODELS/hostile/$name" --memory 80GiB
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: $MODELS/hostile/$name/$said" ]
	done <<-'EOF'
		missing-shard|model-00001-of-00002.safetensors: no such file, and model.safetensors.index.json has no metadata.total_size to price the shards not downloaded from
		total-size-string|model.safetensors.index.json: metadata.total_size: the string "16060522496" is not a number
		total-size-negative|model.safetensors.index.json: metadata.total_size: -16060522496 is not a whole number of bytes of 1 or more
		total-size-float|model.safetensors.index.json: metadata.total_size: 1234567.5 is not a whole number of bytes of 1 or more
		total-size-zero|model.safetensors.index.json: metadata.total_size: 0 is not a whole number of bytes of 1 or more
		total-size-huge|model.safetensors.index.json: metadata.total_size: 1.152921504606847e+18 is more than 1125899906842624 bytes (a pebibyte)
		total-size-tiny|model.safetensors.index.json: metadata.total_size is 1 byte, less than a bit a parameter of config.json's shape (42432 parameters): the index is malformed
		total-size-short|model.safetensors.index.json: metadata.total_size is 100 bytes, less than the 1280 its shards here hold: the index is malformed
	EOF
	# An index naming a shard outside its folder is refused, downloaded or not.
	dir="$BATS_TEST_TMPDIR/escape"
	mkdir -p "$dir"
	cp "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/config.json" "$dir/"
	echo '{"metadata":{"total_size":16060522496},"weight_map":{"lm_head.weight":"../model-00001-of-00001.safetensors"}}' \
		>"$dir/model.safetensors.index.json"
	run_split "$HMN" fit "$dir" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $dir/model.safetensors.index.json names '../model-00001-of-00001.safetensors', not a .safetensors file beside it" ]
}

# hf_cache ROOT: a Hugging Face cache under ROOT as huggingface_hub leaves a download of
# meta-llama/Llama-3.1-8B in progress: refs/main, a snapshot of links into blobs (config.json, the
# index, the first shard), the second shard's blob still .incomplete and not linked yet.
HASH=5206a32e0bd3067aef1ce90f5528ade7d866253f
hf_cache() {
	local repo="$1/models--meta-llama--Llama-3.1-8B"
	mkdir -p "$repo/refs" "$repo/blobs" "$repo/snapshots/$HASH"
	printf '%s' "$HASH" >"$repo/refs/main"
	cp "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/config.json" "$repo/blobs/0bb5ba9d"
	cp "$TESTS_DIR/fixtures/fit/Llama-3.1-8B/model.safetensors.index.json" "$repo/blobs/1f7a0b6b"
	cp --sparse=always "$MODELS/Llama-3.1-8B-partial/model-00001-of-00004.safetensors" "$repo/blobs/2b1879f5"
	: >"$repo/blobs/3c6e1a2b.incomplete"
	ln -s ../../blobs/0bb5ba9d "$repo/snapshots/$HASH/config.json"
	ln -s ../../blobs/1f7a0b6b "$repo/snapshots/$HASH/model.safetensors.index.json"
	ln -s ../../blobs/2b1879f5 "$repo/snapshots/$HASH/model-00001-of-00004.safetensors"
}

@test "fit ORG/NAME: the local Hugging Face cache, never the network; named ORG/NAME, never by a snapshot's hash" {
	hf_cache "$BATS_TEST_TMPDIR/hub"
	mkdir -p "$BATS_TEST_TMPDIR/home/.cache/huggingface" "$BATS_TEST_TMPDIR/hf-home"
	ln -s "$BATS_TEST_TMPDIR/hub" "$BATS_TEST_TMPDIR/home/.cache/huggingface/hub"
	ln -s "$BATS_TEST_TMPDIR/hub" "$BATS_TEST_TMPDIR/hf-home/hub"
	cd "$BATS_TEST_TMPDIR"
	for how in "HF_HUB_CACHE=$BATS_TEST_TMPDIR/hub HOME=/nonexistent" "HF_HOME=$BATS_TEST_TMPDIR/hf-home HOME=/nonexistent" \
		"HOME=$BATS_TEST_TMPDIR/home"; do
		run_split env -u HF_HUB_CACHE -u HF_HOME -u XDG_CACHE_HOME $how "$HMN" fit meta-llama/Llama-3.1-8B --memory 80GiB --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e '.model.name == "meta-llama/Llama-3.1-8B" and .model.path == "meta-llama/Llama-3.1-8B"
			and .parts.weights_bytes == 16060522496 and .model.parameters == 8030261248'
		[ "$stderr" = "hmn: meta-llama/Llama-3.1-8B: note: 3 of 4 shards not downloaded (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors): their weights priced from the index's total_size" ]
	done
	# The cache root and the snapshot typed: titled by the repository.
	for typed in hub/models--meta-llama--Llama-3.1-8B "hub/models--meta-llama--Llama-3.1-8B/snapshots/$HASH" \
		"hub/models--meta-llama--Llama-3.1-8B/snapshots/$HASH/config.json"; do
		run_split "$HMN" fit "$typed" --memory 80GiB
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "hmn fit: meta-llama/Llama-3.1-8B: llama, 8.03B parameters (bf16), 131072 tokens x 1 sequence" ]
	done
	# A snapshot typed by a short relative path from inside the cache: still the repository's name.
	cd hub/models--meta-llama--Llama-3.1-8B/snapshots
	for typed in "$HASH" "$HASH/config.json" "./$HASH/"; do
		run_split "$HMN" fit "$typed" --memory 80GiB
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "hmn fit: meta-llama/Llama-3.1-8B: llama, 8.03B parameters (bf16), 131072 tokens x 1 sequence" ]
	done
	cd "$HASH"
	run_split "$HMN" fit "../$HASH" --memory 80GiB
	[ "${lines[0]}" = "hmn fit: meta-llama/Llama-3.1-8B: llama, 8.03B parameters (bf16), 131072 tokens x 1 sequence" ]
	cd "$BATS_TEST_TMPDIR"
	# huggingface_hub's older HUGGINGFACE_HUB_CACHE, ~ expanded, and ORG/NAME/ as a shell completes it.
	for how in "HUGGINGFACE_HUB_CACHE=$BATS_TEST_TMPDIR/hub HF_HOME=/nonexistent" \
		"HF_HUB_CACHE=~/.cache/huggingface/hub HOME=$BATS_TEST_TMPDIR/home"; do
		run_split env -u HF_HUB_CACHE -u HF_HOME -u XDG_CACHE_HOME $how "$HMN" fit meta-llama/Llama-3.1-8B/ --memory 80GiB --json
		[ "$status" -eq 0 ]
		[ "$(jq -r .model.name <<<"$output")" = meta-llama/Llama-3.1-8B ]
	done
	# A path that is there wins over the cache.
	mkdir -p meta-llama
	cp -r "$TESTS_DIR/fixtures/fit/Llama-3.1-8B" meta-llama/
	run_split env HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit meta-llama/Llama-3.1-8B --memory 80GiB --json
	[ "$(jq -r .model.name <<<"$output")" = Llama-3.1-8B ]
	# Not in the cache: where it looked said.
	run_split env -u HF_HOME -u XDG_CACHE_HOME HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit Qwen/Qwen2.5-7B --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: Qwen/Qwen2.5-7B: no such file or folder, nor in the Hugging Face cache ($BATS_TEST_TMPDIR/hub/models--Qwen--Qwen2.5-7B)" ]
	# What is no repository id is not looked up.
	run_split env HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit nobody/../hub/nothing --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: nobody/../hub/nothing: no such file or folder" ]
}

@test "fit: a hostile Hugging Face cache: refs/main is a commit's hash or refused" {
	hf_cache "$BATS_TEST_TMPDIR/hub"
	root="$BATS_TEST_TMPDIR/hub/models--meta-llama--Llama-3.1-8B"
	for ref in "../../../../etc" "../../snapshots/$HASH" "main"; do
		printf '%s\n' "$ref" >"$root/refs/main"
		run_split env HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit meta-llama/Llama-3.1-8B --memory 80GiB
		[ "$status" -eq 1 ]
		[ "$stderr" = "hmn: meta-llama/Llama-3.1-8B: refs/main holds '$ref', not a commit's hash" ]
	done
	printf '%s' "${HASH//5/6}" >"$root/refs/main"
	run_split "$HMN" fit "$root" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $root: refs/main names commit ${HASH//5/6}, whose snapshot is not in the cache" ]
	# A blob deleted under its link: a damaged cache, not a download in progress (huggingface_hub links a
	# blob only once it is whole): said, never priced as a shard to come.
	printf '%s' "$HASH" >"$root/refs/main"
	rm "$root/blobs/2b1879f5"
	run_split "$HMN" fit "$root" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $root/snapshots/$HASH: model-00001-of-00004.safetensors leads nowhere (its file is gone): the download is damaged, not in progress" ]
}

@test "fit ORG/NAME in another case: a suggestion, not a guess; a cache root without refs/main and one snapshot: read, said" {
	hf_cache "$BATS_TEST_TMPDIR/hub"
	root="$BATS_TEST_TMPDIR/hub/models--meta-llama--Llama-3.1-8B"
	# The Hub takes ids in any case; the cache keeps the case it was fetched by (huggingface_hub
	# would fetch meta-llama/llama-3.1-8b into a folder of its own), so the one there is named.
	run_split env -u HF_HOME -u XDG_CACHE_HOME HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit meta-llama/llama-3.1-8b --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: meta-llama/llama-3.1-8b: no such file or folder, nor in the Hugging Face cache ($BATS_TEST_TMPDIR/hub/models--meta-llama--llama-3.1-8b); the cache holds meta-llama/Llama-3.1-8B (names are case-sensitive here)" ]
	# No refs/main (a cache copied in part), one snapshot: that one, said in a note.
	rm "$root/refs/main"
	run_split env HF_HUB_CACHE="$BATS_TEST_TMPDIR/hub" "$HMN" fit meta-llama/Llama-3.1-8B --memory 80GiB --json
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "hmn: meta-llama/Llama-3.1-8B: note: 3 of 4 shards not downloaded (model-00002-of-00004.safetensors, model-00003-of-00004.safetensors, model-00004-of-00004.safetensors): their weights priced from the index's total_size; no refs/main in its cache folder: its one snapshot, ${HASH:0:12}, read" ]
	echo "$output" | jq -e '.model.name == "meta-llama/Llama-3.1-8B" and .parts.weights_bytes == 16060522496'
	# Two: which one is meant is not known, refused as before.
	mkdir "$root/snapshots/${HASH//5/6}"
	run_split "$HMN" fit "$root" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $root: a Hugging Face cache folder without refs/main: name one of its snapshots ($root/snapshots)" ]
}

@test "fit: MAX_BATCH is the most sequences of --context that fit: --batch at it fits, one more does not" {
	run "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 8192 --memory 40GiB --json
	[ "$status" -eq 0 ]
	batch=$(echo "$output" | jq .gpus[0].max_batch)
	# 1 GiB of cache a sequence of 8192 tokens beside 5.1 GiB of the rest, x 1.1, in 40 GiB: 31.
	[ "$batch" -eq 31 ]
	run "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 8192 --batch "$batch" --memory 40GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.batch == 31 and .gpus[0].fits and .gpus[0].max_batch == 31'
	run_split "$HMN" fit "$MODELS/llama-3-8b.Q4_K_M.gguf" --context 8192 --batch $((batch + 1)) --memory 40GiB --json
	[ "$status" -eq 4 ]
	echo "$output" | jq -e '.gpus[0].fits == false and .gpus[0].max_batch == 31'
	# With --train, the largest micro-batch: the same edge.
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --train --context 2048 --memory 80GiB --json
	[ "$status" -eq 0 ]
	micro=$(echo "$output" | jq .gpus[0].max_batch)
	[ "$micro" -gt 1 ]
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --train --context 2048 --batch "$micro" --memory 80GiB
	[ "$status" -eq 0 ]
	run "$HMN" fit "$MODELS/Qwen2.5-0.5B-Instruct" --train --context 2048 --batch $((micro + 1)) --memory 80GiB
	[ "$status" -eq 4 ]
	# Too big to load at all: 0 in the table, a number still.
	run_split "$HMN" fit "$MODELS/Meta-Llama-3-70B" --memory 80GiB
	[ "$status" -eq 4 ]
	[ "${lines[-1]}" = "  -  80.0GiB  no              -          0  (--memory)" ]
}

@test "fit: a quantized checkpoint's config.json is priced in its format, and says which" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# openai/gpt-oss-20b's config.json: MXFP4 experts, the rest bf16; its download is 13,761,264,768 bytes.
	run_split "$HMN" fit "$fixtures/gpt-oss-20b/config.json" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "mxfp4" and .model.dtype == "mxfp4"
		and .parts.weights_bytes == 13761264768'
	# No float32 note: the quantized checkpoint's float parts are bf16.
	[[ "$stderr" != *"float32"* ]]
	run_split "$HMN" fit "$fixtures/gpt-oss-20b/config.json" --memory 80GiB --context 4096
	[ "$status" -eq 0 ]
	[[ "${lines[2]}" == "weights(mxfp4)  "*"GiB" ]]
	# --dtype prices the weights at T instead: the format is not the table's then, still the model's.
	run_split "$HMN" fit "$fixtures/gpt-oss-20b/config.json" --memory 80GiB --context 4096 --dtype bf16
	[ "$status" -eq 0 ]
	[[ "${lines[2]}" == "weights  "*"GiB" ]]
	run_split "$HMN" fit "$fixtures/gpt-oss-20b/config.json" --memory 80GiB --context 4096 --dtype bf16 --json
	echo "$output" | jq -e '.model.quantization == "mxfp4" and .parts.weights_bytes > 40000000000'
	# Its folder, config.json and the index before the download: the index's total_size, still mxfp4.
	# Its parameters the config's, gpt_oss's sinks and router and expert biases counted:
	# the published 20,914,757,184 (20,908,119,360 without them).
	run_split "$HMN" fit "$fixtures/gpt-oss-20b" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "mxfp4" and .parts.weights_bytes == 13761264768
		and .model.parameters == 20914757184'
	[[ "$stderr" == *"note: 3 of 3 shards not downloaded"* ]]
	# deepseek-ai/DeepSeek-R1's: fp8 in 128 x 128 blocks; embeddings and head bf16.
	run_split "$HMN" fit "$fixtures/deepseek-r1/config.json" --memory 1TiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "fp8" and .parts.weights_bytes == 673150552416'
	# Not quantized: null.
	run_split "$HMN" fit "$fixtures/gemma-3-4b-it/config.json" --memory 80GiB --context 4096 --json
	echo "$output" | jq -e '.model.quantization == null'
	# A quant_method hmn does not know: said, priced in the float type.
	mkdir -p "$BATS_TEST_TMPDIR/hqq"
	jq '.quantization_config = {"quant_method": "hqq", "nbits": 4}' "$fixtures/gemma-3-4b-it/config.json" \
		>"$BATS_TEST_TMPDIR/hqq/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/hqq" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/hqq: quantization 'hqq' is not one hmn knows: priced as bf16 weights" ]
	echo "$output" | jq -e '.model.quantization == null and (.model.warning | contains("hqq"))'
	# A hostile one: one line naming file and key, exit 1.
	mkdir -p "$BATS_TEST_TMPDIR/bits"
	jq '.quantization_config = {"quant_method": "gptq", "bits": 99}' "$fixtures/gemma-3-4b-it/config.json" \
		>"$BATS_TEST_TMPDIR/bits/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/bits" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/bits/config.json: quantization_config.bits: 99 is not 2, 3, 4 or 8" ]
	# NVIDIA ModelOpt's hf_quant_config.json beside config.json: FP8, lm_head left in bf16.
	mkdir -p "$BATS_TEST_TMPDIR/modelopt"
	cp "$fixtures/gemma-3-4b-it/config.json" "$BATS_TEST_TMPDIR/modelopt/"
	echo '{"producer":{"name":"modelopt","version":"0.19.0"},"quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8","exclude_modules":["lm_head"]}}' \
		>"$BATS_TEST_TMPDIR/modelopt/hf_quant_config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/modelopt" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "modelopt-fp8"'
	# Kimi-K2-Thinking's quantization_config on DeepSeek-R1's shape: int4 routed experts, the shared
	# experts ("re:.*shared_experts.*"), attention and dense MLPs in bf16: 401,906,670,496 bytes (test-model.c works it).
	mkdir -p "$BATS_TEST_TMPDIR/kimi"
	jq --slurpfile q "$fixtures/Kimi-K2-Thinking/quantization_config.json" '.quantization_config = $q[0]' \
		"$fixtures/deepseek-r1/config.json" >"$BATS_TEST_TMPDIR/kimi/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/kimi" --memory 1TiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "ct-int4" and .parts.weights_bytes == 401906670496'
	# llm-compressor's W4A16 with the attention left out, saved module by module (128 names): attention in bf16.
	mkdir -p "$BATS_TEST_TMPDIR/w4a16"
	jq '.quantization_config = {"quant_method": "compressed-tensors", "format": "pack-quantized",
		"config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
		"symmetric": true, "strategy": "group", "group_size": 128}}},
		"ignore": (["lm_head"] + [range(32) as $i | ("q", "k", "v", "o")
			| "model.layers.\($i).self_attn.\(.)_proj"])}' \
		"$fixtures/Llama-3.1-8B/config.json" >"$BATS_TEST_TMPDIR/w4a16/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/w4a16" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "ct-int4" and .parts.weights_bytes == 7692887552'
	# MLX's mode: mxfp4 keeps a uint8 scale per 32 and no biases.
	mkdir -p "$BATS_TEST_TMPDIR/mlx-mxfp4"
	jq '.quantization = {"group_size": 32, "bits": 4, "mode": "mxfp4"}' "$fixtures/Llama-3.1-8B/config.json" \
		>"$BATS_TEST_TMPDIR/mlx-mxfp4/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/mlx-mxfp4" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "mlx-mxfp4" and .parts.weights_bytes == 4266467328'
}

@test "fit: quantized safetensors: the files' bytes are what the config's layout says, the parameters the model's" {
	# Meta-Llama-3-8B as AutoGPTQ (4 bits, groups of 128), bitsandbytes (nf4, double quantization)
	# and mlx_lm (4 bits, groups of 64) write it: the headers' sizes and the config alone agree to the
	# byte, and the packed tensors count the 8,030,261,248 weights they hold (the Hub shows 5.7 GB
	# for unsloth's llama-3-8b-bnb-4bit and 4.5 GB for mlx-community's Meta-Llama-3-8B-Instruct-4bit).
	for case in GPTQ:gptq-int4:5732835328 bnb-4bit:bnb-nf4:5702561664 4bit-mlx:mlx-4bit:4517404672; do
		IFS=: read -r folder format bytes <<<"$case"
		run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B-$folder" --memory 80GiB --context 1024 --json
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		echo "$output" | jq -e --arg f "$format" --argjson b "$bytes" '.model.format == "safetensors"
			and .model.quantization == $f and .model.parameters == 8030261248 and .model.dtype == "int4"
			and .parts.weights_bytes == $b'
		run_split "$HMN" fit "$MODELS/Meta-Llama-3-8B-$folder/config.json" --memory 80GiB --context 1024 --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e --arg f "$format" --argjson b "$bytes" '.model.format == "config"
			and .model.quantization == $f and .model.parameters == 8030261248 and .parts.weights_bytes == $b'
	done
	# DeepSeek-V3's fp8 in 128 x 128 blocks: the config alone lacks only the routers' 58 float32 biases of 256.
	run_split "$HMN" fit "$MODELS/DeepSeek-V3" --memory 1TiB --context 1024 --json
	files=$(echo "$output" | jq .parts.weights_bytes)
	run_split "$HMN" fit "$MODELS/DeepSeek-V3/config.json" --memory 1TiB --context 1024 --json
	[ "$(echo "$output" | jq .parts.weights_bytes)" -eq $((files - 58 * 256 * 4)) ]
}

@test "fit: an older GPTQ repository says its bits in quantize_config.json alone" {
	# TheBloke's repositories before transformers read GPTQ: config.json without quantization_config,
	# AutoGPTQ's quantize_config.json beside it.
	mkdir -p "$BATS_TEST_TMPDIR/gptq"
	jq 'del(.quantization_config)' "$MODELS/Meta-Llama-3-8B-GPTQ/config.json" >"$BATS_TEST_TMPDIR/gptq/config.json"
	echo '{"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": false, "static_groups": false, "sym": true, "true_sequential": true, "model_name_or_path": null, "model_file_base_name": "model"}' \
		>"$BATS_TEST_TMPDIR/gptq/quantize_config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/gptq" --memory 80GiB --context 1024 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "gptq-int4" and .parts.weights_bytes == 5732835328'
	echo '{"bits": 5}' >"$BATS_TEST_TMPDIR/gptq/quantize_config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/gptq" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/gptq/quantize_config.json: bits: 5 is not 2, 3, 4 or 8" ]
}

@test "fit: the families beyond Llama's from their real config.json: published counts, their own KV caches" {
	fixtures="$TESTS_DIR/fixtures/fit"
	while IFS='|' read -r folder arch parameters kv; do
		run_split "$HMN" fit "$fixtures/$folder/config.json" --memory 400GiB --context 512 --kv-dtype bf16 --json
		[ "$status" -eq 0 ]
		[[ -z "$stderr" || "$stderr" == *": note: "* ]] || { echo "$stderr"; false; }
		echo "$output" | jq -e --arg arch "$arch" --argjson p "$parameters" --argjson kv "$kv" \
			'.model.architecture == $arch and .model.parameters == $p and .model.warning == null
			 and .parts.kv_cache_bytes == $kv * 512'
	done <<-'EOF'
		falcon-7b|falcon|6921720704|8192
		falcon-7b-rw|RefinedWebModel|6921720704|8192
		falcon-40b|RefinedWeb|41303293952|122880
		phi-2|phi|2779683840|327680
		smollm3-3b|smollm3|3075098624|73728
		xlm-roberta-large|xlm-roberta|559890432|0
		stablelm-2-1_6b|stablelm|1644515328|196608
		starcoder2-3b|starcoder2|3030371328|30720
		OLMo-2-1124-7B|olmo2|7298617344|524288
		internlm2-chat-1_8b|internlm2|1889110016|98304
		granite-3.1-3b-a800m-instruct|granitemoe|3298793472|65536
		persimmon-8b-base|persimmon|9397175296|589824
		glm-4-9b-chat-1m|chatglm|9483857920|81920
		OLMoE-1B-7B-0924|olmoe|6919161856|131072
		EXAONE-4.0-1.2B|exaone4|1279391488|61440
		TongGu-7B|baichuan|7505973248|524288
		dbrx-instruct|dbrx|131596523520|163840
		Phi-3-small-8k-instruct|phi3small|7392272384|131072
		Phi-3.5-MoE-instruct|phimoe|41873153344|131072
		Llama-3_3-Nemotron-Super-49B-v1|nemotron-nas|49867145216|200704
		Qwen-7B-Chat-Cantonese|qwen|7721324544|524288
		Qwen-72B|qwen|72287920128|2621440
		granite-3.3-8b-instruct|granite|8170864640|163840
		MiMo-7B-RL|mimo|7622619136|147456
	EOF
}

@test "fit: quantized checkpoints' config.json alone against their real downloads; the format's own bits named" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# mlx-community's Qwen3-14B-MLX-4bit: config.json alone is its index's total_size to the byte
	# (embeddings and head quantized too); with the index beside it, the same.
	mkdir -p "$BATS_TEST_TMPDIR/mlx"
	cp "$fixtures/Qwen3-14B-MLX-4bit/config.json" "$BATS_TEST_TMPDIR/mlx/"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/mlx" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "mlx-4bit" and .model.dtype == "int4"
		and .parts.weights_bytes == 8307783680'
	run_split "$HMN" fit "$fixtures/Qwen3-14B-MLX-4bit" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "mlx-4bit" and .parts.weights_bytes == 8307783680'
	[[ "$stderr" == *"note: 2 of 2 shards not downloaded"* ]]
	# TheBloke's Wizard-Vicuna-30B GPTQ branches, their files' sizes (Git LFS pointers): 4-bit group 64
	# 18,181,100,600 bytes, 3-bit group 128 13,509,984,992. hmn is 8.57 MB under: AutoGPTQ's zero
	# float16 biases and the header. Each said in its own bits: gptq-int3 is int3, not int4.
	mkdir -p "$BATS_TEST_TMPDIR/gptq3"
	jq '.quantization_config = {"quant_method": "gptq", "bits": 3, "group_size": 128}' \
		"$fixtures/Wizard-Vicuna-30B-Uncensored-GPTQ/config.json" >"$BATS_TEST_TMPDIR/gptq3/config.json"
	for case in "$fixtures/Wizard-Vicuna-30B-Uncensored-GPTQ:gptq-int4:int4:18181100600" \
		"$BATS_TEST_TMPDIR/gptq3:gptq-int3:int3:13509984992"; do
		IFS=: read -r folder format dtype file <<<"$case"
		run_split "$HMN" fit "$folder" --memory 80GiB --context 2048 --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e --arg f "$format" --arg d "$dtype" --argjson file "$file" \
			'.model.quantization == $f and .model.dtype == $d and .weights_dtype == $d
			 and .parts.weights_bytes < $file and .parts.weights_bytes > $file * 0.999'
	done
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/gptq3" --memory 80GiB --context 2048
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "hmn fit: gptq3: llama, 32.53B parameters (int3), 2048 tokens x 1 sequence" ]
	[[ "${lines[2]}" == "weights(gptq-int3)  "*"GiB" ]]
	# EXL2: the mean bits in its name, as its branches say them; its type the nearest whole bits.
	mkdir -p "$BATS_TEST_TMPDIR/exl2"
	jq '.quantization_config = {"quant_method": "exl2", "bits": 6.5, "head_bits": 8}' \
		"$fixtures/Wizard-Vicuna-30B-Uncensored-GPTQ/config.json" >"$BATS_TEST_TMPDIR/exl2/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/exl2" --memory 80GiB --context 2048
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "hmn fit: exl2: llama, 32.53B parameters (int7), 2048 tokens x 1 sequence" ]
	[[ "${lines[2]}" == "weights(exl2-6.5bpw)  "*"GiB" ]]
	# unsloth's llama-3-8b-Instruct-bnb-4bit: its model.safetensors is 5.70 GB.
	run_split "$HMN" fit "$fixtures/llama-3-8b-Instruct-bnb-4bit/config.json" --memory 80GiB --context 2048 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.quantization == "bnb-nf4" and .parts.weights_bytes >= 5695000000
		and .parts.weights_bytes < 5705000000'
	# Qwen/Qwen-VL-Chat-Int4: GPTQ's text model and, from config.json's "visual", its float16 tower of
	# 1,935,610,624 parameters (3,871,221,248 bytes), once left out: 0.009% under its 9,731,786,240.
	mkdir -p "$BATS_TEST_TMPDIR/qwen-vl"
	cp "$fixtures/Qwen-VL-Chat-Int4/config.json" "$BATS_TEST_TMPDIR/qwen-vl/"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/qwen-vl" --memory 80GiB --context 2048 --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.model.quantization == "gptq-int4" and .parts.vision_bytes == 3871221248
		and .parts.weights_bytes + .parts.vision_bytes > 9731786240 * 0.9998
		and .parts.weights_bytes + .parts.vision_bytes < 9731786240'
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/qwen-vl" --memory 80GiB --context 2048
	[ "$status" -eq 0 ]
	[[ "${lines[3]}" == "vision  "*"GiB" ]]
	# int3 names a checkpoint's bits: no --dtype loads it.
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/gptq3" --memory 80GiB --dtype int3
	[ "$status" -eq 2 ]
}

@test "fit: multi-token-prediction layers are said with their size, not priced, from config.json alone" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# MiMo-7B's model.mtp_layers.0: one Qwen2 layer, input_proj 8192 x 4096, three norms (test-model.c works it).
	run_split "$HMN" fit "$fixtures/MiMo-7B-RL/config.json" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 7622619136 and .parts.weights_bytes == 15245238272
		and .parts.kv_cache_bytes == 603979776 and .model.warning == null'
	[ "$stderr" = "hmn: $fixtures/MiMo-7B-RL/config.json: note: its 1 multi-token-prediction layer (0.21B parameters in the download) not priced: vLLM loads it only for speculative decoding" ]
	# DeepSeek-R1's layer 61: a mixture layer with its own embeddings and head, the 14B of its 685B.
	run_split "$HMN" fit "$fixtures/deepseek-r1/config.json" --memory 1TiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 671026404352'
	[[ "$stderr" == *"note: its 1 multi-token-prediction layer (13.46B parameters in the download) not priced"* ]]
	# A hostile count: one line naming file and key.
	mkdir -p "$BATS_TEST_TMPDIR/mimo"
	jq '.num_nextn_predict_layers = "one"' "$fixtures/MiMo-7B-RL/config.json" >"$BATS_TEST_TMPDIR/mimo/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/mimo" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/mimo/config.json: num_nextn_predict_layers: the string \"one\" is not a number" ]
	jq '.num_nextn_predict_layers = 4096' "$fixtures/MiMo-7B-RL/config.json" >"$BATS_TEST_TMPDIR/mimo/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/mimo" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/mimo/config.json: num_nextn_predict_layers: 4096 is more than its 36 layers" ]
}

@test "fit: Gemma 3n from its config.json: its text model, the layers sharing KV without a cache, its towers priced" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# E2B: a text model of 4,456,156,768 parameters (per-layer embeddings 2,013,265,920 of them) and
	# towers of 980,561,504 (MobileNet-V5-300M 291,406,912, the audio conformer 681,348,640, the two
	# embedders): 5,436,718,272, the Hub's 5.44B; 20 of 30 layers cache, 4 full and 16 in windows of 512,
	# 2,048 bytes a token each (test-model.c works them).
	run_split "$HMN" fit "$fixtures/gemma-3n-E2B-it/config.json" --memory 80GiB --context 4096 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.architecture == "gemma3n_text" and .model.parameters == 5436718272
		and .model.layers == 30 and .parts.weights_bytes == 8912313536 and .parts.kv_cache_bytes == 50331648
		and .parts.vision_bytes == 1961123008 and .model.warning == null'
	[[ "$stderr" != *"left out"* ]]
	# --text-only: the text model as before, no vision part.
	run_split "$HMN" fit "$fixtures/gemma-3n-E2B-it/config.json" --memory 80GiB --context 4096 --json --text-only
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.parts.weights_bytes == 8912313536 and .parts.vision_bytes == null
		and .parts.kv_cache_bytes == 50331648'
	# E4B at its trained 32768: the 4 full layers grow, the 16 windows do not; 7,847,258,192, the Hub's 7.85B.
	run_split "$HMN" fit "$fixtures/gemma-3n-E4B-it/config.json" --memory 80GiB --context 32768 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 7847258192 and .parts.kv_cache_bytes == 285212672
		and .parts.weights_bytes == 13733393376 and .parts.vision_bytes == 1961123008'
	# Another timm architecture: its image tower said left out, the audio tower still priced.
	mkdir -p "$BATS_TEST_TMPDIR/resnet"
	jq '.vision_config.architecture = "resnet50"' "$fixtures/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/resnet/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/resnet" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.parts.vision_bytes == 1369388096
		and (.model.warning | contains("its vision_config (resnet50) is not one hmn prices: the image tower is left out"))'
	# Hostile tower keys: one line naming file and key, exit 1.
	mkdir -p "$BATS_TEST_TMPDIR/towers"
	jq '.audio_config.conf_num_attention_heads = 7' "$fixtures/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/towers/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/towers" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/towers/config.json: audio_config.conf_num_attention_heads: 7 does not divide its hidden_size, 1536" ]
	jq '.audio_config.sscp_conv_kernel_size = [[3, 3], "3"]' "$fixtures/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/towers/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/towers" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/towers/config.json: audio_config.sscp_conv_kernel_size[1] is not a pair" ]
	jq '.vision_config.hidden_size = 1e300' "$fixtures/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/towers/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/towers" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/towers/config.json: vision_config.hidden_size: 1.0000000000000001e+300 is more than 16777216" ]
	jq '.vision_config.architecture = ["mobilenetv5_300m_enc"]' "$fixtures/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/towers/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/towers" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/towers/config.json: vision_config.architecture is not a name" ]
	# Hostile text keys: one line naming file and key, exit 1.
	mkdir -p "$BATS_TEST_TMPDIR/shared" "$BATS_TEST_TMPDIR/widths"
	jq '.text_config.num_kv_shared_layers = 35' "$fixtures/gemma-3n-E4B-it/config.json" \
		>"$BATS_TEST_TMPDIR/shared/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/shared" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/shared/config.json: text_config.num_kv_shared_layers: 35 leaves none of its 35 layers a cache of its own" ]
	# 29 of E2B's 30: the shared span holds full-attention layers, and none before it is one (transformers refuses it).
	jq '.text_config.num_kv_shared_layers = 29' "$fixtures/gemma-3n-E2B-it/config.json" >"$BATS_TEST_TMPDIR/shared/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/shared" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/shared/config.json: text_config.num_kv_shared_layers: 29 shares layer 4's cache, but no layer before the shared ones is full attention" ]
	jq '.text_config.intermediate_size = [16384]' "$fixtures/gemma-3n-E4B-it/config.json" \
		>"$BATS_TEST_TMPDIR/widths/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/widths" --memory 80GiB --json
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/widths/config.json: text_config.intermediate_size has 1 entry for 35 layers" ]
}

@test "fit: encoder-decoders from their real config.json: published counts, the decoder's cache and the encoder output's" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# T5 and BART: the encoder's input is the context, the cross-attention as long: 512 + 512 cells.
	# Whisper: 448 of the decoder's tokens, the encoder's 1500 in blocks of 16 (1504) whatever the context.
	while IFS='|' read -r folder arch parameters layers context cells kv; do
		run_split "$HMN" fit "$fixtures/$folder/config.json" --memory 400GiB --context "$context" --kv-dtype bf16 --json
		[ "$status" -eq 0 ]
		[[ -z "$stderr" || "$stderr" == *": note: "* ]] || { echo "$stderr"; false; }
		echo "$output" | jq -e --arg arch "$arch" --argjson p "$parameters" --argjson kv "$kv" --argjson cells "$cells" \
			--argjson layers "$layers" \
			'.model.architecture == $arch and .model.parameters == $p and .model.warning == null
			 and .model.layers == $layers and .parts.kv_cache_bytes == $kv * $cells'
	done <<-'EOF'
		t5-small|t5|60506624|12|512|1024|12288
		flan-t5-large|t5|783150080|48|512|1024|98304
		bart-base|bart|139470681|12|512|1024|18432
		whisper-base|whisper|72593920|12|448|1952|12288
		whisper-large-v3|whisper|1543490560|64|448|1952|163840
		whisper-large-v3|whisper|1543490560|64|100|1616|163840
		t5-v1_1-xxl-encoder|t5|4762310656|24|512|0|0
	EOF
}

@test "fit: Whisper's context is its decoder's 448 tokens: the default, a warning past it, its 1500-token encoder output in MAX_BATCH" {
	config="$TESTS_DIR/fixtures/fit/whisper-large-v3/config.json"
	run_split "$HMN" fit "$config" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.context == 448 and .model.context_length == 448 and .parts.weights_bytes == 3086981120
		and .parts.kv_cache_bytes == 319815680'
	run_split "$HMN" fit "$config" --memory 80GiB --context 1000 --json
	[ "$status" -eq 0 ]
	# Its decoder's positions are a learned table of 448: past them it cannot attend at all, not "untrained".
	echo "$output" | jq -e '.model.warning == "context 1000 is beyond its 448 positions, a learned table: it cannot attend past them; estimated as asked"
		and .parts.kv_cache_bytes == 163840 * (1008 + 1504)'
	# BART's learned 1024 the same; T5's relative positions have no end: untrained past its 512, no more.
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/bart-base" --memory 80GiB --context 2000 --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.warning | startswith("context 2000 is beyond its 1024 positions, a learned table: it cannot attend past them; estimated as asked")'
	run_split "$HMN" fit "$TESTS_DIR/fixtures/fit/t5-small" --memory 80GiB --context 2000 --json
	echo "$output" | jq -e '.model.warning | startswith("context 2000 is beyond its 512 trained tokens: estimated as asked")'
	# 5 GiB: the weights, the runtime and three sequences of 448 + 1504 cells (each 305 MiB).
	run_split "$HMN" fit "$config" --memory 5GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.gpus[0].max_context == 448 and .gpus[0].max_batch == 3'
}

@test "fit: an encoder-decoder's hostile config.json is one line naming the file and the key" {
	config="$TESTS_DIR/fixtures/fit/t5-small/config.json"
	while IFS='|' read -r key value said; do
		jq --arg key "$key" --argjson value "$value" '.[$key] = $value' "$config" >"$BATS_TEST_TMPDIR/config.json"
		run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB
		[ "$status" -eq 1 ]
		[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/config.json: $said" ] || { echo "$stderr"; false; }
	done <<-'EOF'
		feed_forward_proj|5|feed_forward_proj: 5 is not ACT or gated-ACT ("relu", "gated-gelu")
		feed_forward_proj|"gated-gelu-x"|feed_forward_proj: the string "gated-gelu-x" is not ACT or gated-ACT ("relu", "gated-gelu")
		d_kv|1e300|d_kv: 1e+300 is more than 16777216
		num_decoder_layers|4095|6 encoder and 4095 decoder layers, more than 4096
		num_decoder_layers|0|num_decoder_layers: 0 is no decoder for a model that generates (only a T5 encoder alone, architectures' *EncoderModel, has none)
		relative_attention_num_buckets|"32"|relative_attention_num_buckets: the string "32" is not a number
	EOF
	jq '.decoder_attention_heads = 7' "$TESTS_DIR/fixtures/fit/whisper-base/config.json" >"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/config.json: decoder_attention_heads: 7 does not divide d_model, 512" ]
}

@test "fit: an encoder-decoder's safetensors headers and its config.json alone agree (whisper-tiny, t5-small)" {
	# The headers' count is exact (whisper-tiny's float32 model.safetensors is 151 MB, t5-small's 242 MB);
	# the config's implied count and the caches are the same.
	while IFS='|' read -r folder parameters weights kv; do
		for path in "$MODELS/$folder" "$MODELS/$folder/config.json"; do
			run_split "$HMN" fit "$path" --memory 80GiB --context 448 --json
			[ "$status" -eq 0 ]
			echo "$output" | jq -e --argjson p "$parameters" --argjson w "$weights" --argjson kv "$kv" \
				'.model.parameters == $p and .parts.weights_bytes == $w and .parts.kv_cache_bytes == $kv
				 and .model.warning == null'
		done
	done <<-'EOF'
		whisper-tiny|37760640|151042560|23986176
		t5-small|60506624|242026496|22020096
	EOF
}

@test "fit: a Fuyu or MiniCPM-V built of another text model or tower is refused naming it" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# FuyuConfig's text_config is Persimmon's: a Llama there would be priced as a Fuyu-shaped Llama, neither model.
	jq '.text_config = {"model_type":"llama"}' "$fixtures/fuyu-8b/config.json" >"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/config.json: text_config.model_type: model_type fuyu is built of persimmon's, not llama" ]
	# Persimmon's named is Fuyu's own: the same 9,408,238,592 parameters.
	jq '.text_config = {"model_type":"persimmon"}' "$fixtures/fuyu-8b/config.json" >"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.parameters == 9408238592'
	jq '.vision_config.model_type = "clip_vision_model"' "$fixtures/MiniCPM-V-2_6/config.json" >"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: $BATS_TEST_TMPDIR/config.json: vision_config.model_type: model_type minicpmv is built of siglip's, not clip_vision_model" ]
}

@test "fit: what each engine keeps whole or in its own types: the cache's default type, towers and streams under --gpus" {
	fixtures="$TESTS_DIR/fixtures/fit"
	# glm-4-9b-chat-1m names no torch_dtype (float32): its cache f32 as stored, bf16 once loaded in bf16 or
	# quantized (vLLM casts to 16 bits first), llama.cpp's f16 for a file type, whose q8_0 cache is taken.
	for want in "|f32|1342177280" "--dtype bf16|bf16|671088640" "--dtype int4|bf16|671088640" \
		"--dtype fp8|bf16|671088640" "--dtype Q4_K_M|f16|671088640" "--dtype Q4_K_M --kv-dtype q8_0|q8_0|356515840"; do
		IFS='|' read -r args kv bytes <<<"$want"
		# shellcheck disable=SC2086 # args holds options to split
		run_split "$HMN" fit "$fixtures/glm-4-9b-chat-1m" --memory 80GiB --context 8192 $args --json
		[ "$status" -eq 0 ]
		echo "$output" | jq -e --arg kv "$kv" --argjson bytes "$bytes" \
			'.kv_dtype == $kv and .parts.kv_cache_bytes == $bytes' || { echo "$args: $output"; false; }
	done
	# vLLM's cache takes no q8_0 of a safetensors model loaded as vLLM loads it.
	run_split "$HMN" fit "$fixtures/glm-4-9b-chat-1m" --memory 80GiB --kv-dtype q8_0
	[ "$status" -eq 2 ]
	# Gemma 3n's towers are plain transformers and timm modules in vLLM: whole on each of 8 GPUs.
	run_split "$HMN" fit "$fixtures/gemma-3n-E2B-it" --memory 80GiB --gpus 8 --json
	echo "$output" | jq -e '.parts.vision_bytes == 1961123008'
	# An encoder's residual stream is whole on each GPU; its attention and feed-forward split:
	# 2 x 512 x 4096 x 2 + (3 x 512 x 10240 x 2) / 8 = 12,320,768.
	run_split "$HMN" fit "$fixtures/t5-v1_1-xxl-encoder" --memory 24GiB --gpus 8 --json
	echo "$output" | jq -e '.parts.activations_bytes == 12320768'
	# transformers 5 writes rope_scaling as rope_parameters: Qwen 2.5's YaRN stretch read from it too.
	jq '.rope_parameters = .rope_scaling | del(.rope_scaling)' "$fixtures/Llama-3.1-8B/config.json" \
		>"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB --json
	echo "$output" | jq -e '.model.context_length == 131072'
	jq '.rope_parameters = {"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}
		| del(.rope_scaling) | .max_position_embeddings = 32768' "$fixtures/Llama-3.1-8B/config.json" \
		>"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB --context 131072 --json
	echo "$output" | jq -e '.model.context_length == 32768 and .model.warning == null'
	jq 'del(.rope_parameters)' "$BATS_TEST_TMPDIR/config.json" >"$BATS_TEST_TMPDIR/plain.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/plain.json" --memory 80GiB --context 131072 --json
	echo "$output" | jq -e '.model.warning | contains("beyond its 32768 trained tokens")'
}
