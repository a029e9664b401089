#!/usr/bin/env bats
# hmn fit against llama.cpp itself: node-llama-cpp (tools/llama, npm) loads each
# sparse GGUF on the CPU and logs what llama.cpp allocated; hmn fit's weights and
# KV cache must equal it to the MiB (two decimals, as llama.cpp prints them) and
# its activations be within 5% of llama.cpp's compute buffer. A few cases only:
# each load takes seconds (tests/bench/fit runs them all, tools/llama/record
# refreshes the unit test's table). Skipped where the npm package is not
# installed (tests/run --install installs it where node is 20 or newer).

load helpers

llama="$TESTS_DIR/../tools/llama"

setup() {
	common_setup
	[ -f "$MODELS/MANIFEST" ] || skip "no test models (tests/make-models)"
	command -v node >/dev/null || skip "no node"
	[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] || skip "node-llama-cpp needs node 20"
	[ -d "$llama/node_modules/node-llama-cpp" ] || skip "node-llama-cpp is not installed (npm install --omit=optional in tools/llama)"
}

mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }

# compare FILE CONTEXT FLASH(on|off) [HOST]: llama.cpp's figures beside hmn fit's. These CPU-only
# loads put every tensor in one buffer; on a GPU llama.cpp keeps token_embd on the host (HOST bytes,
# for a model whose output head is not that matrix), and hmn's weights leave it out as well.
compare() {
	local file=$1 context=$2 flash=$3 host=${4:-0} attention=fused
	[ "$flash" = on ] || attention=eager
	ref=$(cd "$llama" && node reference.mjs "$MODELS/$file" --context "$context" --flash-attention "$flash")
	fit=$("$HMN" fit "$MODELS/$file" --context "$context" --attention "$attention" --memory 1TiB --json)
	want_model=$(jq -r '.model_mib | tostring' <<<"$ref")
	want_kv=$(jq -r '(.kv_mib // .recurrent_mib)' <<<"$ref")
	want_compute=$(jq -r .compute_mib <<<"$ref")
	got_model=$(mib "$(($(jq .parts.weights_bytes <<<"$fit") + host))")
	got_kv=$(mib "$(jq .parts.kv_cache_bytes <<<"$fit")")
	got_compute=$(mib "$(jq .parts.activations_bytes <<<"$fit")")
	echo "# $file $context tokens, flash $flash: weights $got_model/$want_model MiB, KV $got_kv/$want_kv," \
		"compute $got_compute/$want_compute (hmn/llama.cpp)" >&3
	# A CPU whose llama.cpp repacks some weights into a buffer of its own (AMX on Sapphire
	# Rapids) logs no figure the tensors' size can be held against: said, the rest compared.
	extra=$(jq -r '.extra_buffers | join(", ")' <<<"$ref")
	if [ -n "$extra" ] && [ "$got_model" != "$(printf '%.2f' "$want_model")" ]; then
		echo "# weights not compared: llama.cpp put some in $extra buffers, outside its mapped one" >&3
	else
		[ "$got_model" = "$(printf '%.2f' "$want_model")" ]
	fi
	[ "$got_kv" = "$(printf '%.2f' "$want_kv")" ]
	awk -v g="$got_compute" -v w="$want_compute" 'BEGIN { d = g / w - 1; exit !(d > -0.05 && d < 0.05) }'
}

@test "llama.cpp: Llama-3.2-1B (GQA, tied embeddings), 16384 tokens, flash attention" {
	compare llama-3.2-1b.Q8_0.gguf 16384 on
}

@test "llama.cpp: Qwen2.5-0.5B in f16, 4096 tokens, no flash attention (the s x s scores)" {
	compare qwen2.5-0.5b.F16.gguf 4096 off
}

@test "llama.cpp: a Mixtral-like MoE, 4096 tokens" {
	# token_embd: Q8_0, 1024 x 32000 = 34,816,000 bytes on the host.
	compare moe-tiny.Q8_0.gguf 4096 off 34816000
}

@test "llama.cpp: Mixtral-8x7B's experts (2 of its layers), whose feed-forward outgrows the logits, 5000 tokens" {
	# token_embd: Q8_0, 4096 x 32000 = 139,264,000 bytes on the host. 5000 tokens: 5120 cells.
	compare mixtral-8x7b-2l.Q8_0.gguf 5000 off 139264000
}

@test "llama.cpp: Qwen3-30B-A3B's 128 experts, 8 used (4 of its layers), 3000 tokens" {
	# token_embd: Q8_0, 2048 x 151936 = 330,612,736 bytes on the host.
	compare qwen3-30b-a3b-4l.Q8_0.gguf 3000 on 330612736
}

@test "llama.cpp: Mamba's recurrent state" {
	compare mamba-130m.F32.gguf 4096 on
}
