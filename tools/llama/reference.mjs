#!/usr/bin/env node
// llama.cpp's own figures for a GGUF: loads it on the CPU (mmap, no GPU) through
// node-llama-cpp's prebuilt llama.cpp, creates a context, and prints what
// llama.cpp logged that it allocated, as one JSON object on stdout:
//
//   node tools/llama/reference.mjs MODEL.gguf [--context N] [--batch N] [--sequences N]
//                                  [--flash-attention on|off] [--log]
//
// --batch is llama.cpp's n_batch and n_ubatch (node-llama-cpp sets both to it;
// llama.cpp's default n_ubatch is 512). --log copies llama.cpp's log to stderr.
// Sizes are MiB as llama.cpp prints them (two decimals); a split model's
// buffers and a sliding-window model's two caches are summed:
//   {"n_ctx":..., "n_ubatch":..., "model_mib":..., "kv_mib":..., "kv_cells":...,
//    "recurrent_mib":..., "compute_mib":..., "output_mib":..., "lines":[...]}
// n_ubatch is what llama.cpp used: node-llama-cpp adds 1 to the batch for a
// model with sliding windows.
// A figure llama.cpp did not log is null. extra_buffers names the model buffers of
// another type (AMX, CPU_REPACK), where model_mib may not be the tensors' size. Exit status 1 when the model or the
// context could not be made (llama.cpp's last lines on stderr).
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

function usage(why) {
	process.stderr.write(`reference: ${why}\nusage: reference.mjs MODEL.gguf [--context N] [--batch N] ` +
		"[--sequences N] [--flash-attention on|off] [--log]\n");
	process.exit(2);
}

const args = process.argv.slice(2);
const opts = { context: 4096, batch: 512, sequences: 1, flash: false, log: false };
let model = null;
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	const number = () => {
		const v = Number(args[++i]);
		if (!Number.isInteger(v) || v < 1)
			usage(`${a} needs a positive integer`);
		return v;
	};
	if (a === "--context") opts.context = number();
	else if (a === "--batch") opts.batch = number();
	else if (a === "--sequences") opts.sequences = number();
	else if (a === "--flash-attention") {
		const v = args[++i];
		if (v !== "on" && v !== "off")
			usage("--flash-attention takes on or off");
		opts.flash = v === "on";
	} else if (a === "--log") opts.log = true;
	else if (a.startsWith("-")) usage(`unknown option ${a}`);
	else if (model === null) model = a;
	else usage("one model at a time");
}
if (model === null)
	usage("no model");

const lines = [];
const llama = await getLlama({
	gpu: false,
	build: "never",
	usePrebuiltBinaries: true,
	logLevel: LlamaLogLevel.debug,
	logger(level, message) {
		for (const line of String(message).split("\n")) {
			if (line.trim() === "")
				continue;
			lines.push(line);
			if (opts.log)
				process.stderr.write(line + "\n");
		}
	},
});

let failed = null;
try {
	const m = await llama.loadModel({ modelPath: model, gpuLayers: 0, useMmap: true });
	const ctx = await m.createContext({
		contextSize: opts.context,
		batchSize: opts.batch,
		sequences: opts.sequences,
		flashAttention: opts.flash,
	});
	await ctx.dispose();
	await m.dispose();
} catch (e) {
	failed = e;
}

// The last match of re in the log, as a number (null when absent).
function figure(re) {
	let value = null;
	for (const line of lines) {
		const m = line.match(re);
		if (m)
			value = Number(m[1]);
	}
	return value;
}

// The sum of every match: a split model logs a buffer a file, a model with
// sliding windows a KV cache for each kind of layer (null when none).
function total(re) {
	let sum = null;
	for (const line of lines) {
		const m = line.match(re);
		if (m)
			sum = (sum ?? 0) + Number(m[1]);
	}
	return sum === null ? null : Math.round(sum * 100) / 100;
}

// Model buffers of another type than the plain CPU one (AMX, CPU_REPACK: a CPU whose
// llama.cpp build repacks some weights, as Sapphire Rapids' does) hold those
// tensors in a layout of their own, and the mapped buffer may no longer span
// all the file's tensors: model_mib (the plain buffers) is then not always
// the tensors' size.
const extraBuffers = [...new Set(lines.map((l) => l.match(/load_tensors: +(\S+) model buffer size/))
	.filter((m) => m && m[1] !== "CPU" && m[1] !== "CPU_Mapped").map((m) => m[1]))];

const result = {
	model: model,
	context: opts.context,
	batch: opts.batch,
	sequences: opts.sequences,
	flash_attention: opts.flash,
	n_ctx: figure(/llama_context: n_ctx +=\s*(\d+)/),
	n_ubatch: figure(/llama_context: n_ubatch +=\s*(\d+)/),
	model_mib: total(/CPU(?:_Mapped)? model buffer size\s*=\s*([\d.]+) MiB/),
	extra_buffers: extraBuffers,
	kv_mib: total(/llama_kv_cache(?:_unified)?: +size = +([\d.]+) MiB/),
	kv_cells: figure(/llama_kv_cache(?:_unified)?: +size = .*\( *(\d+) cells/),
	recurrent_mib: figure(/llama_memory_recurrent: +size = +([\d.]+) MiB/),
	compute_mib: figure(/CPU compute buffer size = +([\d.]+) MiB/),
	output_mib: figure(/CPU +output buffer size = +([\d.]+) MiB/),
	lines: lines.filter((l) => /buffer size|kv_cache: +size|memory_recurrent: +size|n_ctx|n_ubatch|flash_attn|n_swa|n_seq/.test(l)),
};
process.stdout.write(JSON.stringify(result) + "\n");
if (failed !== null) {
	process.stderr.write(`reference: ${failed.message}\n` + lines.slice(-5).join("\n") + "\n");
	process.exit(1);
}
