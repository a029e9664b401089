# fish completion for hmn

set -l commands free ps

complete -c hmn -f
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a free -d 'Device-wide memory, one row per GPU'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a ps -d 'Per-process GPU memory'

complete -c hmn -l json -d 'Print JSON instead of a table'
complete -c hmn -l backend -x -a 'nvml nvidia-smi drm dxgi pdh metal' -d 'Sources to use, in order'
complete -c hmn -s v -l verbose -d 'Say which sources were tried and why'
complete -c hmn -s h -l help -d 'Print help'
complete -c hmn -s V -l version -d 'Print the version'

complete -c hmn -l device -x -d 'Only these GPUs (indices or UUIDs)'
complete -c hmn -l no-header -d 'Leave out the header line'
complete -c hmn -l bytes -d 'Exact byte counts'

complete -c hmn -n "__fish_seen_subcommand_from ps" -l pid -x -a '(__fish_complete_pids)' -d 'Only these process IDs'
complete -c hmn -n "__fish_seen_subcommand_from ps" -l sort -x -a 'vram pid name device' -d 'Order of the rows'
