# fish completion for hmn

set -l commands free ps watch run fit

complete -c hmn -f
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a free -d 'Device-wide memory, one row per GPU'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a ps -d 'Per-process GPU memory'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Free and ps again every interval'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a run -d 'Run a command, report its peak GPU memory'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a fit -d 'How much GPU memory a model needs'
complete -c hmn -n "not __fish_seen_subcommand_from $commands help" -a help -d 'This help, or a command\'s'
# hmn help COMMAND: the command names, once.
complete -c hmn -n "__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from $commands" -a "$commands"

complete -c hmn -l json -d 'Print JSON instead of a table'
complete -c hmn -n "not __fish_seen_subcommand_from watch run fit" -l format -x -a 'table json csv prometheus' -d 'Output format'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l format -x -a 'table json csv prometheus' -d 'Output format (csv: a log; prometheus with -o)'
complete -c hmn -n "__fish_seen_subcommand_from run fit" -l format -x -a 'table json' -d 'Report format'
complete -c hmn -s o -l output -r -F -d 'Write to a file, atomically'
complete -c hmn -l backend -x -a 'nvml nvidia-smi drm dxgi pdh metal' -d 'Sources to use, in order'
complete -c hmn -s q -l quiet -d 'No summary or report; free --need and fit: no table'
complete -c hmn -s v -l verbose -d 'Say what each source found, or why not'
complete -c hmn -s h -l help -d 'Print help'
complete -c hmn -s V -l version -d 'Print the version'

complete -c hmn -l device -x -d 'Only these GPUs (0, 0/2.0, GPU-..., MIG-...)'
complete -c hmn -n "not __fish_seen_subcommand_from run" -l no-header -d 'Leave out the header line'
complete -c hmn -n "not __fish_seen_subcommand_from run" -l bytes -d 'Exact byte counts'

complete -c hmn -n "not __fish_seen_subcommand_from ps watch run fit" -s l -l long -d 'Add utilisation, temperature and power'
complete -c hmn -n "__fish_seen_subcommand_from ps" -s l -l long -d 'Add COMMAND, the command line'
complete -c hmn -n "__fish_seen_subcommand_from watch" -s l -l long -d 'Add utilisation, temperature, power and command lines'
complete -c hmn -n "not __fish_seen_subcommand_from ps watch run fit" -l need -x -d 'Exit 4 unless a GPU has this much free'
complete -c hmn -n "not __fish_seen_subcommand_from ps watch run fit" -l pick -x -d 'Print the N GPUs with --need free, most first'

complete -c hmn -n "__fish_seen_subcommand_from ps watch" -l pid -x -a '(__fish_complete_pids)' -d 'Only these process IDs'
complete -c hmn -n "__fish_seen_subcommand_from ps watch" -l sort -x -a 'vram pid name device' -d 'Order of the rows'

complete -c hmn -n "__fish_seen_subcommand_from watch run" -l interval -x -d 'Time between samples (250ms, 1s, 2m)'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l count -x -d 'Stop after N samples'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l duration -x -d 'Stop after this long'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l rows -x -a 'gpus processes' -d "What a row of the CSV log is"
complete -c hmn -n "__fish_seen_subcommand_from run" -l need -x -d 'With --pick: free memory each picked GPU needs'
complete -c hmn -n "__fish_seen_subcommand_from run" -l pick -x -d 'Start COMMAND on N GPUs with --need free'
complete -c hmn -n "__fish_seen_subcommand_from run" -l hold -x -d 'Keep picked GPUs from other launches (30s)'
complete -c hmn -n "__fish_seen_subcommand_from run" -l limit -x -d 'Stop the tree past this much GPU memory (8GiB, 50%), exit 124'
complete -c hmn -n "__fish_seen_subcommand_from run" -l kill-after -x -d "After --limit's SIGTERM, SIGKILL what is left (10s)"
complete -c hmn -n "__fish_seen_subcommand_from run; and __fish_seen_argument -- --" -a '(__fish_complete_subcommand --fcs-skip=3)'

# hmn fit MODEL
set -l dtypes 'f32 f16 bf16 fp8 int8 int4 q5_k q4_k q3_k Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_0 Q4_1 Q4_K_S Q4_K_M Q5_0 Q5_1 Q5_K_S Q5_K_M Q6_K Q8_0 IQ1_S IQ1_M IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ3_XXS IQ3_XS IQ3_S IQ3_M IQ4_XS IQ4_NL TQ1_0 TQ2_0 MXFP4_MOE'
set -l kv_dtypes 'f32 f16 bf16 fp8 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1'
complete -c hmn -n "__fish_seen_subcommand_from fit" -F -d 'Model: GGUF, safetensors, config.json or folder'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l context -x -d 'Tokens a sequence (default: as trained)'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l batch -x -d 'Sequences at once'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l ubatch -x -d "Tokens a step (llama.cpp's -ub)"
complete -c hmn -n "__fish_seen_subcommand_from fit" -l dtype -x -a "$dtypes" -d 'Price the weights in this type'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l kv-dtype -x -a "$kv_dtypes" -d "The KV cache's type"
complete -c hmn -n "__fish_seen_subcommand_from fit" -l train -d 'Training: gradients, AdamW, activations'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l text-only -d 'A vision model without its image tower'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l attention -x -a 'fused eager' -d 'Fused kernel or eager s^2 scores'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l gpus -x -d 'Split over N GPUs (tensor parallel)'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l memory -x -d 'Plan for a GPU of this size'
complete -c hmn -n "__fish_seen_subcommand_from fit" -l margin -x -d 'Factor for fragmentation (1.1)'
